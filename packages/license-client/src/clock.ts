import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Clock rollback: a user who turns the computer's clock back could keep an expired file or a
// recorded answer alive. Every signed answer and file carries `issuedAt`, the service's clock;
// the client keeps the latest it has verified and refuses anything while the local clock is more
// than 24 hours earlier than it (`clock-rolled-back`).

/** How far the local clock may lag the latest verified issuedAt (time zones, drift): 24 hours. */
export const clockToleranceMs = 24 * 60 * 60 * 1000;

/**
 * Where the client keeps the latest issuedAt it has verified (an ISO 8601 string). `load`
 * answers undefined when nothing was kept yet. The synchronous checks (`verifyLicenseFile`,
 * `verifySignedValidation`) need a store whose `load` answers at once, like the file store; the
 * asynchronous ones (`checkLicenseFile`, `checkSignedValidation`, machines) take either.
 */
export interface ClockStore {
  load(): string | undefined | Promise<string | undefined>;
  save(issuedAt: string): void | Promise<void>;
}

/** A store that answers at once, as the synchronous checks need. */
export interface SyncClockStore extends ClockStore {
  load(): string | undefined;
  save(issuedAt: string): void;
}

/**
 * The default file: `.license-client/latest-issued-at` in the user's home folder, so it
 * outlives restarts and temporary-folder cleanups, and every application of the user on this
 * machine shares what it has seen of the service's clock.
 */
export const defaultClockFile = () => path.join(os.homedir(), '.license-client', 'latest-issued-at');

/**
 * A store in one small file (created with its folder on first save; written whole, then
 * renamed, so a crash never leaves half a date). Synchronous, so it serves every check.
 */
export function createFileClockStore(file: string = defaultClockFile()): SyncClockStore {
  return {
    load() {
      let text: string;
      try {
        text = readFileSync(file, 'utf8').trim();
      } catch {
        return undefined; // nothing kept yet
      }
      return Number.isNaN(Date.parse(text)) ? undefined : text;
    },
    save(issuedAt) {
      mkdirSync(path.dirname(file), { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, `${issuedAt}\n`);
      renameSync(partial, file);
    },
  };
}

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

const timeOf = (iso: unknown) => (typeof iso === 'string' ? Date.parse(iso) : Number.NaN);

/** The later of the kept issuedAt and this one; whether it must be saved; and whether `now` is too early for it. */
function judge(kept: string | undefined, issuedAt: unknown, now: Date) {
  const fresh = timeOf(issuedAt);
  const keptTime = timeOf(kept);
  const latestTime = Math.max(Number.isNaN(fresh) ? -Infinity : fresh, Number.isNaN(keptTime) ? -Infinity : keptTime);
  const save = !Number.isNaN(fresh) && (Number.isNaN(keptTime) || fresh > keptTime) ? (issuedAt as string) : undefined;
  return { save, rolledBack: latestTime - now.getTime() > clockToleranceMs };
}

/**
 * Keeps a verified `issuedAt` and answers whether the local clock was rolled back, for the
 * synchronous checks: the store's `load` must answer at once. A save that fails (a read-only
 * folder) does not fail the check: the kept date only stays older.
 */
export function clockRolledBackSync(store: ClockStore, issuedAt: unknown, now: Date): boolean {
  const kept = store.load();
  if (isPromise(kept))
    throw new TypeError(
      'This clock store loads asynchronously: use checkLicenseFile or checkSignedValidation, or a synchronous store',
    );
  const { save, rolledBack } = judge(kept, issuedAt, now);
  if (save !== undefined) {
    try {
      const saving = store.save(save);
      if (isPromise(saving)) saving.catch(() => undefined);
    } catch {
      /* kept date stays older */
    }
  }
  return rolledBack;
}

/** The same, for a store of either kind. */
export async function clockRolledBack(store: ClockStore, issuedAt: unknown, now: Date): Promise<boolean> {
  const { save, rolledBack } = judge(await store.load(), issuedAt, now);
  if (save !== undefined) {
    try {
      await store.save(save);
    } catch {
      /* kept date stays older */
    }
  }
  return rolledBack;
}
