import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// A feature's repository is its own: other features reach its tables through its service (or
// share a row type through its *.schema.ts), so the SQL of a table can change with one folder in
// view. This reads the imports of every source file of both apps (type imports and re-exports
// included) and fails on one of another folder's `*.repository.ts`, naming the file and the
// import. The files at the top of src/ (app.ts, the service's start-up) are held to it as well.
// Tables (`*.table.ts`) are not held to it: the Drizzle schema's foreign keys name other
// features' tables by design.

const root = path.resolve(import.meta.dirname, '..');
const apps = ['apps/license/src', 'apps/paste/src'];

const importPattern =
  /(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

interface RepositoryImport {
  /** The importing file, from the repository root. */
  file: string;
  /** The import as written. */
  specifier: string;
  sameFolder: boolean;
}

function repositoryImports(src: string): RepositoryImport[] {
  const found: RepositoryImport[] = [];
  for (const name of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith('.ts')) continue;
    const file = path.join(src, name);
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const specifier = match[1] ?? match[2]!;
      if (!/\.repository\.(js|ts)$/.test(specifier)) continue;
      const target = path.resolve(path.dirname(file), specifier);
      // The feature folder below src/; none for a file at the top.
      const folderOf = (at: string) => {
        const parts = path.relative(src, at).split(path.sep);
        return parts.length > 1 ? parts[0] : undefined;
      };
      found.push({
        file: path.relative(root, file),
        specifier,
        sameFolder: folderOf(file) !== undefined && folderOf(file) === folderOf(target),
      });
    }
  }
  return found;
}

describe.each(apps)('%s', (app) => {
  const imports = repositoryImports(path.join(root, app));

  it('finds the repository imports', () => {
    // A scanner that found nothing would prove nothing: each service reads its own repository.
    expect(imports.filter((entry) => entry.sameFolder).length).toBeGreaterThan(5);
  });

  it("imports no other folder's repository", () => {
    const strays = imports.filter((entry) => !entry.sameFolder).map((entry) => `${entry.file}: ${entry.specifier}`);
    expect(strays).toEqual([]);
  });
});
