import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const fixture = path.join(import.meta.dirname, 'fixtures/freed-memory-process.ts');
const youngFixture = path.join(import.meta.dirname, 'fixtures/young-generation-process.ts');
const tsxLoader = pathToFileURL(path.resolve(import.meta.dirname, '../../../node_modules/tsx/dist/loader.mjs')).href;
const linux = process.platform === 'linux';
if (!linux) console.log('skipped: freed-memory.test.ts needs Linux with glibc (malloc_trim)');

interface Line {
  msg?: string;
  beforeMb?: number;
  afterMb?: number;
  done?: boolean;
  kept?: number;
  grownMb?: number;
  idleMb?: number;
}

/** Runs a fixture in a process of its own; answers the JSON lines it printed (its log and its result). */
async function runFixture(file: string, nodeFlags: string[] = [], env: NodeJS.ProcessEnv = process.env) {
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeFlags, '--import', tsxLoader, file], { env });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
}

describe.skipIf(!linux)('releaseFreedMemory (a process of its own)', () => {
  it('gives the memory freed between live buffers back to the system at its first trim', async () => {
    const lines = await runFixture(fixture, [], { ...process.env, MALLOC_ARENA_MAX: '2' });
    const trims = lines.filter((line) => line.msg === 'freed memory given back to the system');
    expect(trims).toHaveLength(1);
    // About 60 MB were freed in holes malloc keeps; at least 30 MB of it must leave the process.
    expect(trims[0]!.beforeMb! - trims[0]!.afterMb!).toBeGreaterThanOrEqual(30);
    expect(lines.at(-1)).toEqual({ done: true, kept: 4_000 });
  });

  it('shrinks the young generation V8 grew under load once the process idles', async () => {
    // Node's default young generation (16 MB per semi-space), as the services run it.
    const lines = await runFixture(youngFixture, ['--expose-gc']);
    const last = lines.at(-1)!;
    expect(last.grownMb).toBeGreaterThanOrEqual(16);
    expect(last.idleMb).toBeLessThanOrEqual(2);
    const shrunk = lines.filter((line) => line.msg === 'young generation shrunk');
    expect(shrunk).toHaveLength(1);
    expect(shrunk[0]).toMatchObject({ beforeMb: last.grownMb, afterMb: last.idleMb });
  });
});
