import type { ObjectStore } from './object-store.js';

/**
 * What an app keeps of the objects it no longer needs (paste attachments of pastes that are
 * gone, artifacts of deleted releases): rows in its own database, so that a deletion never waits
 * for the store and nothing is forgotten while the store is down.
 */
export interface PendingRemovals<Item> {
  /** Up to `limit` items whose objects are to be removed now. */
  due(limit: number): Promise<Item[]>;
  keyOf(item: Item): string;
  /** Drops the item's row once its object is gone. */
  forget(item: Item): Promise<void>;
}

/** Logs a store that failed (the pino shape both apps' loggers have). */
export type RemovalWarning = (fields: { err: unknown; key: string }, message: string) => void;

/**
 * Removes the objects of the due items, then their rows; answers how many. A store that fails
 * keeps the row for the next run, and ends this one: the store is likely down, and the others
 * would fail the same way.
 */
export async function removePendingObjects<Item>(
  store: ObjectStore,
  pending: PendingRemovals<Item>,
  options: { limit: number; warn: RemovalWarning },
): Promise<number> {
  let removed = 0;
  for (const item of await pending.due(options.limit)) {
    const key = pending.keyOf(item);
    try {
      await store.delete(key);
    } catch (error) {
      options.warn({ err: error, key }, 'could not remove an object from the store; retrying later');
      break;
    }
    await pending.forget(item);
    removed += 1;
  }
  return removed;
}

/** Keys compared with the database per query. */
const SWEEP_PAGE = 500;

/**
 * Compares the store with the database: removes every object under `prefix` whose key `known`
 * does not answer (an upload that landed after its row was deleted, a row lost by hand).
 * Answers how many objects it removed. `known` gets the keys of one page and answers those
 * that have a row.
 */
export async function sweepOrphanObjects(
  store: ObjectStore,
  options: { prefix: string; known: (keys: string[]) => Promise<Set<string>> },
): Promise<number> {
  let removed = 0;
  let page: string[] = [];
  const flush = async () => {
    const known = await options.known(page);
    for (const key of page) {
      if (known.has(key)) continue;
      await store.delete(key);
      removed += 1;
    }
    page = [];
  };
  for await (const object of store.list(options.prefix)) {
    page.push(object.key);
    if (page.length >= SWEEP_PAGE) await flush();
  }
  if (page.length > 0) await flush();
  return removed;
}
