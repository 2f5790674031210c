// `npm run build`: compiles each app to apps/<app>/dist/main.js (and the chunks it loads), that
// `node apps/<app>/dist/main.js` runs without TypeScript tooling (and the development identity
// provider to packages/dev-idp/dist/main.js, for the docker compose demo).
//
// The workspace packages (@app/*) are TypeScript sources, so they are bundled in; npm packages
// stay external and are loaded from the app's node_modules at run time. That only works when the
// app itself declares every npm package its bundle imports (pnpm gives each package only its own
// dependencies), so the build fails when one is missing from the app's "dependencies".
//
// The bundle lives in dist/, one level below the app like src/, so paths the code resolves from
// import.meta.dirname ('../drizzle', '../public') find the same folders; files beside a module
// deeper in src/ are copied next to the bundle (see `copies`).
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');

/**
 * What is built: the folder holding src/main.ts, and folders read at run time relative to a
 * module deeper inside src/, copied to where the bundle looks for them.
 */
// The embedded database's worker thread and its initdb process are files of their own, beside the bundle.
const pgliteWorker = ['../../packages/db/src/pglite-worker.mjs', 'dist/pglite-worker.mjs'];
const pgliteInitdb = ['../../packages/db/src/pglite-initdb.mjs', 'dist/pglite-initdb.mjs'];

const targets = {
  paste: { dir: 'apps/paste', copies: [pgliteWorker, pgliteInitdb] },
  license: { dir: 'apps/license', copies: [['src/dashboard/assets', 'dist/assets'], pgliteWorker, pgliteInitdb] },
  'dev-idp': { dir: 'packages/dev-idp', copies: [] },
};

/** 'pg' -> 'pg', 'pg/lib/x' -> 'pg', '@scope/name/sub' -> '@scope/name'. */
const packageNameOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Marks npm packages external and records which ones the bundle imports, and from where. */
function npmPackagesExternal(imported) {
  return {
    name: 'npm-packages-external',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@app/')) return undefined;
        if (isBuiltin(args.path)) return { external: true };
        const name = packageNameOf(args.path);
        if (!imported.has(name)) imported.set(name, path.relative(root, args.importer));
        return { external: true };
      });
    },
  };
}

/**
 * Builds one target into `<app>/<outDir>` (default `dist`). `npm start` builds into a folder of
 * its own (`.start-<pid>`, same depth as dist, so the same relative paths hold): two starts at
 * once never rewrite the files the other one runs.
 */
export async function buildTarget(name, { outDir = 'dist' } = {}) {
  const spec = targets[name];
  if (!spec) throw new Error(`Unknown build target "${name}": one of ${Object.keys(targets).join(', ')}`);
  const appDir = path.join(root, spec.dir);
  const dist = path.join(appDir, outDir);
  rmSync(dist, { recursive: true, force: true });

  const imported = new Map();
  await build({
    entryPoints: { main: path.join(appDir, 'src/main.ts') },
    outdir: dist,
    bundle: true,
    // What main.ts imports later (`await import`) goes to chunks of its own, beside main.js, so
    // that the entry runs before the service's modules load (it starts the embedded database).
    splitting: true,
    chunkNames: '[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: true,
    // Stack traces need only the mappings: with --enable-source-maps Node keeps each map it
    // loads, and the sources inside them held 4 MB of every service's heap (docs/performance.md).
    sourcesContent: false,
    // Class names (error types) stay readable in logs and stack traces.
    keepNames: true,
    logLevel: 'warning',
    plugins: [npmPackagesExternal(imported)],
  });

  const manifest = JSON.parse(readFileSync(path.join(appDir, 'package.json'), 'utf8'));
  const declared = new Set(Object.keys(manifest.dependencies ?? {}));
  const undeclared = [...imported].filter(([name]) => !declared.has(name));
  if (undeclared.length) {
    rmSync(dist, { recursive: true, force: true });
    throw new Error(
      `${spec.dir}/package.json must list in "dependencies" every npm package its bundle imports:\n` +
        undeclared.map(([name, from]) => `  - ${name} (imported by ${from})`).join('\n'),
    );
  }

  for (const [from, to] of spec.copies) {
    cpSync(path.join(appDir, from), path.join(dist, path.relative('dist', to)), { recursive: true });
  }
  return path.relative(root, path.join(dist, 'main.js'));
}

if (process.argv[1] === import.meta.filename) {
  const chosen = process.argv.slice(2);
  try {
    for (const name of chosen.length ? chosen : Object.keys(targets)) console.log(`built ${await buildTarget(name)}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
