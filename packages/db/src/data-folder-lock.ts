import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * One process per embedded data folder. PGlite keeps the database in memory and writes it to
 * its folder; two processes on one folder each see only their own writes, and after a restart
 * one side's acknowledged writes are gone. So the folder gets a lock file beside it
 * (`<folder>.lock`, outside the folder PGlite owns).
 *
 * Why a pid file and not proper-lockfile: proper-lockfile (mkdir + a refreshed mtime) calls a
 * lock stale only after its `stale` time without a refresh, so a restart after kill -9 would
 * wait, and a process whose event loop stalls longer than that (a long PGlite checkpoint) would
 * lose its lock to a second process. The holder's pid answers both at once: it is running or
 * it is not.
 *
 * The file records the pid, the process start time read from /proc (Linux) and a random token.
 * A recorded pid that is not running, or that runs a different process (its start time differs:
 * the pid was reused, e.g. pid 1 of a recreated container), is stale and is taken over with a
 * warning. Without /proc (macOS) a running pid counts as the holder. The lock guards processes
 * on one machine: a folder on a network share seen by two machines is not protected.
 */
export class DataFolderInUseError extends Error {
  constructor(
    readonly folder: string,
    readonly pid: number,
  ) {
    super(`${folder} is in use by process ${pid}`);
    this.name = 'DataFolderInUseError';
  }
}

interface LockRecord {
  pid: number;
  started: string | null;
  token: string;
}

export interface DataFolderLock {
  release(): void;
}

/** The start time of a process in clock ticks since boot (Linux), or null where unknown. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command name (field 2) is in parentheses and may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether a process `pid` runs (also one of another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecord(file: string): LockRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockRecord>;
    return typeof record.pid === 'number'
      ? { pid: record.pid, started: record.started ?? null, token: String(record.token) }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the recorded holder is this very process, still running. */
function holderIsAlive(record: LockRecord): boolean {
  if (!isRunning(record.pid)) return false;
  const started = startTimeOf(record.pid);
  return started === null || record.started === null || started === record.started;
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Takes the lock of `folder` (`shownAs` is how messages name it, e.g. `data/paste`), or throws
 * `DataFolderInUseError`. `warn` hears about a stale lock taken over.
 */
export function lockDataFolder(folder: string, shownAs: string, warn: (message: string) => void): DataFolderLock {
  const file = `${folder}.lock`;
  const mine: LockRecord = {
    pid: process.pid,
    started: startTimeOf(process.pid),
    token: randomBytes(8).toString('hex'),
  };
  // Written whole under a private name, then linked into place: link fails when the lock
  // exists, so creating is atomic and nobody ever reads a half-written lock.
  const draft = `${file}.${process.pid}.${mine.token}`;
  writeFileSync(draft, JSON.stringify(mine));
  let staleHolder: LockRecord | undefined | null = null;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, file);
        if (staleHolder !== null) {
          warn(
            `${shownAs} was locked by process ${staleHolder?.pid ?? 'unknown'}, which is no longer running: took over its lock`,
          );
        }
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const held = readRecord(file);
      if (held && holderIsAlive(held)) throw new DataFolderInUseError(shownAs, held.pid);
      if (attempt >= 20) throw new DataFolderInUseError(shownAs, held?.pid ?? 0);
      // Stale (or half-written by a process that died at once). Two processes may find it stale
      // together: only the one that creates the takeover guard removes it, so the other cannot
      // remove the fresh lock the first one then makes.
      if (takeOver(file, held)) staleHolder = held;
      else sleep(50);
    }
  } finally {
    unlinkSync(draft);
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    // Only our own lock: never one a later process took over.
    if (readRecord(file)?.token === mine.token) unlinkSync(file);
  };
  process.on('exit', release);
  return { release };
}

/** Removes a stale lock under a guard file; false when another process is at it. */
function takeOver(file: string, stale: LockRecord | undefined): boolean {
  const guard = `${file}.takeover`;
  try {
    writeFileSync(guard, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A guard left by a process that died during its takeover (microseconds) is removed.
    try {
      if (Date.now() - statSync(guard).mtimeMs > 10_000) unlinkSync(guard);
    } catch {
      /* gone meanwhile */
    }
    return false;
  }
  try {
    const now = readRecord(file);
    if (now?.token !== stale?.token) return false;
    unlinkSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  } finally {
    unlinkSync(guard);
  }
}
