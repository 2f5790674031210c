// CPU readings the throughput benchmarks print beside req/s, from /proc (Linux; zeros elsewhere).
import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) a process has used; with `thread`, those of its main thread only:
 * the request thread, without the embedded database's worker.
 */
export function cpuSeconds(pid: number, thread = false): number {
  try {
    const fields = readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8')
      .split(') ')[1]!
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The machine's idle and total CPU time so far (clock ticks, all cores). */
export interface MachineCpu {
  idle: number;
  total: number;
}

export function machineCpu(): MachineCpu {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { idle: fields[3]! + fields[4]!, total: fields.reduce((sum, value) => sum + value, 0) };
  } catch {
    return { idle: 0, total: 0 };
  }
}

/**
 * The share of the machine's CPU left idle between two readings: with idle cores, a route is
 * limited by one of its threads (or by the round trips between them), not by the machine.
 */
export function idleShare(before: MachineCpu, after: MachineCpu): number {
  return (after.idle - before.idle) / Math.max(1, after.total - before.total);
}
