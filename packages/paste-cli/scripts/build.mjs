// `npm run build` (and `npm pack`, through prepack): TypeScript compiles src/ to dist/, and the
// envelope and file formats (plain JavaScript, the very files the paste page loads) are copied beside it.
// dist/paste.js is the `paste` command of package.json's "bin".
import { chmodSync, copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const packageDir = path.resolve(import.meta.dirname, '..');
const dist = path.join(packageDir, 'dist');

const configFile = ts.readConfigFile(path.join(packageDir, 'tsconfig.build.json'), ts.sys.readFile);
const config = ts.parseJsonConfigFileContent(configFile.config, ts.sys, packageDir);
const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => packageDir, getNewLine: () => '\n' };
const fail = (diagnostics) => {
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.exit(1);
};
if (configFile.error || config.errors.length) fail([configFile.error, ...config.errors].filter(Boolean));

rmSync(dist, { recursive: true, force: true });
const program = ts.createProgram(config.fileNames, config.options);
const emitted = program.emit();
const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
if (diagnostics.length) fail(diagnostics);
for (const file of ['envelope.js', 'envelope.d.ts', 'file-stream.js', 'file-stream.d.ts'])
  copyFileSync(path.join(packageDir, 'src', file), path.join(dist, file));
chmodSync(path.join(dist, 'paste.js'), 0o755);
