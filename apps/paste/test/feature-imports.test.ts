import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Feature folders depend on each other one way only: `creator/` uses `pastes/`, `pastes/` uses
// `rendering/`, never back. A two-way dependency makes two folders one feature in two places
// (neither can be read, changed or removed alone). This scans the imports of every file in
// apps/paste/src/<folder>/ and fails when two folders import each other, type imports included.

const src = path.resolve(import.meta.dirname, '../src');
const folders = readdirSync(src, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const importPattern =
  /(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** `from -> to` for every import of one feature folder's file from another folder's. */
function folderImports(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const folder of folders) {
    for (const file of readdirSync(path.join(src, folder), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const from = path.join(src, folder, file);
      for (const match of readFileSync(from, 'utf8').matchAll(importPattern)) {
        const target = path.resolve(path.dirname(from), match[1] ?? match[2]!);
        const [to] = path.relative(src, target).split(path.sep);
        if (!to || to === folder || !folders.includes(to)) continue;
        if (!edges.has(folder)) edges.set(folder, new Set());
        edges.get(folder)!.add(to);
      }
    }
  }
  return edges;
}

describe('paste feature folders', () => {
  const edges = folderImports();

  it('finds the imports between folders', () => {
    // A scanner that found nothing would prove nothing.
    expect(edges.get('creator')).toContain('pastes');
    expect(edges.get('pastes')).toContain('rendering');
  });

  it('never import each other', () => {
    const twoWay = [...edges].flatMap(([from, targets]) =>
      [...targets].filter((to) => from < to && edges.get(to)?.has(from)).map((to) => `${from} <-> ${to}`),
    );
    expect(twoWay).toEqual([]);
  });
});
