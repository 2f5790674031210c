// `npm run build` (and `npm pack`, through prepack): TypeScript compiles src/ to two outputs.
// - dist/esm: ES modules and declarations, from one type-checked program (tsconfig.build.json).
// - dist/cjs: the same modules as CommonJS, with the same declarations. Each file is transpiled
//   on its own, which gives what a full compile would because the sources are isolatedModules;
//   that spares a second program over Node's types.
// dist/cjs/package.json marks that folder CommonJS, as the package itself is "type": "module":
// Node and TypeScript read the nearest package.json to tell the two apart.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const packageDir = path.resolve(import.meta.dirname, '..');
const dist = path.join(packageDir, 'dist');

const configFile = ts.readConfigFile(path.join(packageDir, 'tsconfig.build.json'), ts.sys.readFile);
const config = ts.parseJsonConfigFileContent(configFile.config, ts.sys, packageDir);
const fail = (diagnostics) => {
  const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => packageDir, getNewLine: () => '\n' };
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.exit(1);
};
if (configFile.error || config.errors.length) fail([configFile.error, ...config.errors].filter(Boolean));

rmSync(dist, { recursive: true, force: true });

const program = ts.createProgram(config.fileNames, config.options);
const emitted = program.emit();
const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
if (diagnostics.length) fail(diagnostics);

const esm = config.options.outDir;
const cjs = path.join(dist, 'cjs');
for (const source of config.fileNames) {
  const relative = path.relative(config.options.rootDir, source).replace(/\.ts$/, '');
  const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
    fileName: source,
    compilerOptions: {
      ...config.options,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      declaration: false,
    },
  });
  mkdirSync(path.dirname(path.join(cjs, relative)), { recursive: true });
  writeFileSync(path.join(cjs, `${relative}.js`), outputText);
  copyFileSync(path.join(esm, `${relative}.d.ts`), path.join(cjs, `${relative}.d.ts`));
}
writeFileSync(path.join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
