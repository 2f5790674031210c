import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appError, defineErrorCodes, errorCodes } from '../src/index.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Every TypeScript source file under apps/<name>/src and packages/<name>/src. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) files.push(path);
    }
  };
  for (const top of ['apps', 'packages']) {
    for (const pkg of readdirSync(join(repoRoot, top), { withFileTypes: true })) {
      if (!pkg.isDirectory()) continue;
      try {
        walk(join(repoRoot, top, pkg.name, 'src'));
      } catch {
        /* a package without src */
      }
    }
  }
  return files;
}

const statusSetHere = /new HttpError\(|HttpError\.(badRequest|unauthorized|forbidden|notFound|conflict)\(/;
const catalogueFiles = new Set(['packages/http/src/error-codes.ts', 'packages/http/src/http-error.ts']);

describe('the error-code catalogue', () => {
  it('is the only place in the sources that sets an error status', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(50);
    const offenders = files
      .map((file) => relative(repoRoot, file).split('\\').join('/'))
      .filter((file) => !catalogueFiles.has(file))
      .flatMap((file) =>
        readFileSync(join(repoRoot, file), 'utf8')
          .split('\n')
          .map((line, index) => (statusSetHere.test(line) ? `${file}:${index + 1}: ${line.trim()}` : undefined))
          .filter((hit): hit is string => hit !== undefined),
      );
    expect(offenders).toEqual([]);
  });

  it('leaves request data uncast: handlers get it typed from their schemas', () => {
    const castOfRequestData = /\breq(uest)?\.(body|query|params)\)?\s+as\s/;
    const offenders = sourceFiles()
      .map((file) => relative(repoRoot, file).split('\\').join('/'))
      .flatMap((file) =>
        readFileSync(join(repoRoot, file), 'utf8')
          .split('\n')
          .map((line, index) => (castOfRequestData.test(line) ? `${file}:${index + 1}: ${line.trim()}` : undefined))
          .filter((hit): hit is string => hit !== undefined),
      );
    expect(offenders).toEqual([]);
  });

  it('gives every code an error status (4xx or 5xx) and a text', () => {
    for (const [code, { status, message }] of Object.entries(errorCodes)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(message.trim(), code).not.toBe('');
    }
  });

  it('makes an error of a code with its status and text, or the text given where it carries a value', () => {
    const plain = appError('NOT_FOUND');
    expect([plain.status, plain.message, plain.code]).toEqual([404, 'Not found', 'NOT_FOUND']);
    const limited = appError('TOO_MANY_REQUESTS', { message: 'Slow down', extra: { retry: true } });
    expect([limited.status, limited.message, limited.extra]).toEqual([429, 'Slow down', { retry: true }]);
  });

  it("adds an app's own codes to the shared ones: its appError takes both, and a shared code cannot be redefined", () => {
    const app = defineErrorCodes({ WIDGET_NOT_FOUND: { status: 404, message: 'Widget not found' } });
    const own = app.appError('WIDGET_NOT_FOUND');
    expect([own.status, own.message, own.code]).toEqual([404, 'Widget not found', 'WIDGET_NOT_FOUND']);
    expect(app.appError('UNAUTHORIZED').status).toBe(401);
    expect(app.errorCodes.FORBIDDEN).toEqual(errorCodes.FORBIDDEN);
    // @ts-expect-error a code of the shared catalogue
    defineErrorCodes({ NOT_FOUND: { status: 410, message: 'Gone' } });
  });
});
