/**
 * `npm run bench:scale` (issue 16): the paste service with 1,000,000 pastes, then the license
 * service with 1,000,000 licenses and 5,000,000 usage records, each on its own PostgreSQL
 * database (seeded once, kept; BENCH_RESEED=1 seeds again), each printing its table of pages
 * against their targets. Exits 1 when a target is missed in either.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const halves = ['apps/paste/bench/scale.bench.ts', 'apps/license/bench/scale.bench.ts'];
let failed = false;
for (const file of halves) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, file)], {
    stdio: 'inherit',
    cwd: root,
  });
  if (result.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
