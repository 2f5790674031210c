import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Import cycles between the folders of the license service. madge (`npm run check:cycles`) finds
// cycles between files; this finds them between feature folders: when `licenses/` imports
// `policies/` and `policies/` imports `licenses/` (directly or around a longer loop), neither can
// be read, moved or tested without the other. Type-only imports count: they tie folders as much.
// A file directly in src/ (app.ts, service.ts, main.ts ...) is a node of its own.

const src = path.resolve(import.meta.dirname, '../src');

/** The folder (or top-level file) of src/ that `file` belongs to; undefined outside src/. */
function nodeOf(file: string): string | undefined {
  const relative = path.relative(src, file);
  if (relative.startsWith('..')) return undefined;
  const [first, ...rest] = relative.split(path.sep);
  return rest.length ? first : first!.replace(/\.js$/, '.ts');
}

/** Each node's imports of other nodes, with the first import that makes each edge. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  for (const file of files) {
    const from = nodeOf(path.join(src, file))!;
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(src, file), 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = nodeOf(path.resolve(src, path.dirname(file), fileName));
      if (to === undefined || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, `${file} imports ${fileName}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

/**
 * One loop `a -> b -> ... -> a` per strongly connected component of more than one node
 * (Tarjan's algorithm): every cycle of the graph runs inside one of them.
 */
function findCycles(graph: Map<string, string[]>): string[][] {
  const next = (node: string) => graph.get(node) ?? [];
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const target of next(node)) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (stack.includes(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component = stack.splice(stack.indexOf(node));
      if (component.length > 1) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  // The shortest loop from the component's first node (by name) back to it, breadth first.
  return components.map((component) => {
    const inside = new Set(component);
    const start = [...component].sort()[0]!;
    const parent = new Map<string, string>();
    const queue = [start];
    let last = start;
    search: while (queue.length) {
      const node = queue.shift()!;
      for (const target of next(node)) {
        if (target === start) {
          last = node;
          break search;
        }
        if (inside.has(target) && !parent.has(target)) {
          parent.set(target, node);
          queue.push(target);
        }
      }
    }
    const loop = [start];
    for (let node = last; node !== start; node = parent.get(node)!) loop.splice(1, 0, node);
    return [...loop, start];
  });
}

describe('folder-level import cycles (license service)', () => {
  const graph = folderGraph();

  it('reads the imports of every folder of src/', () => {
    // A reader that found nothing would prove nothing.
    expect(graph.size).toBeGreaterThan(25);
    expect([...graph.get('app.ts')!.keys()]).toEqual(expect.arrayContaining(['licenses', 'machines', 'validation']));
    expect(graph.get('machines')?.has('licenses')).toBe(true);
  });

  it.each([
    { name: 'a two-way pair', graph: { a: ['b'], b: ['a'], c: ['a'] }, cycles: [['a', 'b', 'a']] },
    { name: 'a longer loop', graph: { a: ['b'], b: ['c'], c: ['a'] }, cycles: [['a', 'b', 'c', 'a']] },
    { name: 'a tree with a shared leaf', graph: { a: ['b', 'c'], b: ['c'] }, cycles: [] },
  ])('the cycle finder finds $name', ({ graph: edges, cycles }) => {
    expect(findCycles(new Map(Object.entries(edges)))).toEqual(cycles);
  });

  it('no folder imports a folder that imports it back, directly or around a loop', () => {
    const loops = findCycles(new Map([...graph].map(([from, edges]) => [from, [...edges.keys()]])));
    const printed = loops.map((loop) =>
      loop
        .slice(0, -1)
        .map((from, i) => `${from} -> ${loop[i + 1]} (${graph.get(from)!.get(loop[i + 1]!)})`)
        .join('\n'),
    );
    expect(printed, printed.join('\n\n')).toEqual([]);
  });
});
