// The bundles `npm start` runs: built with esbuild (scripts/build.mjs) into a folder named by a
// fingerprint of the sources, and used again by the next start while no source has changed.
// Building both took 0.25 s alone and about half a second beside the development provider's
// start, on the path of every start (docs/performance.md).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isRunning } from '../packages/db/src/data-folder-lock.js';
import { buildTarget } from './build.mjs';

const root = path.resolve(import.meta.dirname, '..');

/**
 * What a bundle is made of: the app's and the workspace packages' sources (bundled in), the
 * files copied beside it, and the build script. npm packages stay outside the bundle.
 */
const sourceFolders = (service: string) => [
  path.join(root, 'apps', service, 'src'),
  path.join(root, 'packages'),
  path.join(root, 'scripts', 'build.mjs'),
];

/** Paths, sizes and modification times of every source file, hashed (about 1,000 stats). */
function fingerprint(service: string): string {
  const hash = createHash('sha256');
  const visit = (entry: string) => {
    const stats = statSync(entry);
    if (stats.isDirectory()) {
      for (const name of readdirSync(entry).sort()) {
        if (name === 'node_modules' || name === 'dist' || name === 'test' || name.startsWith('.')) continue;
        visit(path.join(entry, name));
      }
    } else {
      hash.update(`${path.relative(root, entry)} ${stats.size} ${stats.mtimeMs}\n`);
    }
  };
  for (const folder of sourceFolders(service)) visit(folder);
  return hash.digest('hex').slice(0, 12);
}

/** A finished bundle says so last: a start killed while building leaves no folder that looks whole. */
const finishedMark = 'built';

/**
 * The bundle of `service` for these sources: the existing one, or a new one. Two starts building
 * the same sources at once each build in a folder of their own, and the first rename wins.
 */
export async function startBundle(service: 'paste' | 'license'): Promise<string> {
  const appDir = path.join(root, 'apps', service);
  const folder = `.start-${fingerprint(service)}`;
  const bundle = path.join(appDir, folder, 'main.js');
  if (existsSync(path.join(appDir, folder, finishedMark))) return bundle;
  const building = `.start-building-${process.pid}`;
  await buildTarget(service, { outDir: building });
  writeFileSync(path.join(appDir, building, finishedMark), '');
  try {
    renameSync(path.join(appDir, building), path.join(appDir, folder));
  } catch {
    // Another start renamed the same sources' bundle into place first.
    rmSync(path.join(appDir, building), { recursive: true, force: true });
  }
  return bundle;
}

/**
 * Removes the bundles no running process uses, but the current ones (`keep`): older sources',
 * and folders of starts killed while building. A process's use shows in its command line
 * (/proc, read once); where there is no /proc, nothing is removed.
 */
export function removeUnusedBundles(keep: Record<string, string>): void {
  if (!existsSync('/proc')) return;
  const commandLines = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        return '';
      }
    });
  for (const [service, bundle] of Object.entries(keep)) {
    const appDir = path.join(root, 'apps', service);
    for (const entry of readdirSync(appDir)) {
      const folder = path.join(appDir, entry);
      if (!entry.startsWith('.start-') || folder === path.dirname(bundle)) continue;
      const builder = /^\.start-building-(\d+)$/.exec(entry)?.[1];
      const inUse = builder
        ? isRunning(Number(builder))
        : commandLines.some((line) => line.includes(folder + path.sep));
      if (!inUse) rmSync(folder, { recursive: true, force: true });
    }
  }
}
