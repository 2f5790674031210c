/**
 * Groups concurrent calls into one call of `run` for many items: items added while a batch is
 * being run (or within the same event-loop turn) wait and go together in the next batch. At most
 * `concurrency` batches run at once, each of at most `maxBatch` items.
 *
 * `run` answers one result per item, in order; a result may be an Error, which rejects that item
 * only. When `run` throws for a batch of several items, each item is run again alone, so one bad
 * item (say, a row the database refuses) fails only its own caller.
 */
export interface BatcherOptions<I, R> {
  run: (items: I[]) => Promise<Array<R | Error>>;
  concurrency?: number;
  maxBatch?: number;
}

/**
 * How many batches to keep in flight on `pool`: `wanted` where the pool has that many
 * connections, otherwise as many as it has. On the embedded database's one connection a second
 * batch only waits for the first in the pool's queue, and it stopped gathering when it was sent,
 * so every batch would be half the size for no overlap (license validation on the embedded
 * database: 10% more validations a second with one batch in flight).
 */
export function batchConcurrency(pool: { options: { max?: number } }, wanted = 2): number {
  return Math.max(1, Math.min(wanted, pool.options.max ?? wanted));
}

interface Waiting<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export function createBatcher<I, R>(options: BatcherOptions<I, R>): (item: I) => Promise<R> {
  const concurrency = options.concurrency ?? 1;
  const maxBatch = options.maxBatch ?? 500;
  let queue: Array<Waiting<I, R>> = [];
  let running = 0;
  let scheduled = false;

  const settle = (batch: Array<Waiting<I, R>>, results: Array<R | Error>) => {
    batch.forEach((waiting, index) => {
      const result = results[index];
      if (index >= results.length) waiting.reject(new Error('batch answered fewer results than items'));
      else if (result instanceof Error) waiting.reject(result);
      else waiting.resolve(result as R);
    });
  };

  const runBatch = async (batch: Array<Waiting<I, R>>) => {
    try {
      settle(batch, await options.run(batch.map((waiting) => waiting.item)));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // Isolate the failure: each item alone (sequentially, so a broken database is not flooded).
      for (const waiting of batch) {
        try {
          settle([waiting], await options.run([waiting.item]));
        } catch (single) {
          waiting.reject(single);
        }
      }
    }
  };

  const flush = () => {
    scheduled = false;
    while (running < concurrency && queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      running += 1;
      void runBatch(batch).finally(() => {
        running -= 1;
        schedule();
      });
    }
  };

  const schedule = () => {
    if (scheduled || queue.length === 0 || running >= concurrency) return;
    scheduled = true;
    setImmediate(flush);
  };

  return (item: I) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}
