import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const marker = '// row-check: hot path, asserted for speed';

/** The TypeScript sources of every app and package (tests, benches and fixtures are not sources). */
function sources(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const at = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(at);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
        found.push(at);
    }
  };
  for (const group of ['apps', 'packages'])
    for (const unit of readdirSync(path.join(root, group))) {
      const src = path.join(root, group, unit, 'src');
      try {
        walk(src);
      } catch {
        // a unit without src/
      }
    }
  return found;
}

describe('rows are checked, not asserted (docs/architecture.md)', () => {
  it('types no query answer with db.query<T> unless it is on a hot path and says so', () => {
    const asserted: string[] = [];
    let hotPaths = 0;
    for (const file of sources()) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, index) => {
        if (!/\.query<[^>]/.test(line) || line.trimStart().startsWith('*')) return;
        if (lines[index - 1]?.trim() === marker) hotPaths += 1;
        else asserted.push(`${path.relative(root, file)}:${index + 1}`);
      });
    }
    expect(asserted).toEqual([]);
    // Validation, activation, heartbeats, delivery claims, paste create and view, the API key check.
    expect(hotPaths).toBeLessThanOrEqual(10);
  });
});
