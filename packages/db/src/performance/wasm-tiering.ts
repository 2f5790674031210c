import { setFlagsFromString } from 'node:v8';

/**
 * V8 optimises a WebAssembly function once it has run through a budget of work. With the default
 * budget, start-up and migrations alone optimise much of PostgreSQL, and the compiler's memory
 * stays with the process: an idle embedded service held about 55 MB more than with a budget a
 * hundred times larger. The functions a steady load keeps running still reach the larger budget
 * within seconds (bench:license, bench:paste). The flag is process-wide and only the database runs
 * WebAssembly here; set before the database's thread starts, it applies to its module. A budget
 * given on the command line (`node --wasm-tiering-budget=1800000`, V8's default) is left alone.
 */
const wasmTieringBudget = 180_000_000;

export function raiseWasmTieringBudget(): void {
  if (process.execArgv.some((flag) => flag.startsWith('--wasm-tiering-budget'))) return;
  setFlagsFromString(`--wasm-tiering-budget=${wasmTieringBudget}`);
}
