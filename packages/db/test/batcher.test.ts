import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { batchConcurrency, createBatcher } from '../src/batcher.js';

describe('batcher', () => {
  it('runs calls made together as one batch, and later calls in the next batch', async () => {
    const batches: number[][] = [];
    const double = createBatcher<number, number>({
      run: async (items) => {
        batches.push(items);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return items.map((item) => item * 2);
      },
    });
    const first = await Promise.all([1, 2, 3].map(double));
    expect(first).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
    // Calls made while a batch runs wait for it and then go together (concurrency 1).
    const running = double(10);
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = [double(11), double(12)];
    expect(await Promise.all([running, ...waiting])).toEqual([20, 22, 24]);
    expect(batches.slice(1)).toEqual([[10], [11, 12]]);
  });

  it('keeps to maxBatch and concurrency', async () => {
    let running = 0;
    let most = 0;
    const sizes: number[] = [];
    const echo = createBatcher<number, number>({
      concurrency: 2,
      maxBatch: 3,
      run: async (items) => {
        running += 1;
        most = Math.max(most, running);
        sizes.push(items.length);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running -= 1;
        return items;
      },
    });
    const input = Array.from({ length: 20 }, (_, index) => index);
    expect(await Promise.all(input.map(echo))).toEqual(input);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(20);
    expect(most).toBe(2);
  });

  it('keeps as many batches in flight as the pool has connections, two at most', async () => {
    const pools = [new pg.Pool({ max: 1 }), new pg.Pool({ max: 20 }), new pg.Pool()];
    // No connection is opened: the pools are only read.
    expect(pools.map((pool) => batchConcurrency(pool))).toEqual([1, 2, 2]);
    expect(batchConcurrency(pools[1]!, 4)).toBe(4);
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it('rejects only the item whose result is an Error', async () => {
    const check = createBatcher<number, number>({
      run: (items) => Promise.resolve(items.map((item) => (item < 0 ? new Error(`bad ${item}`) : item))),
    });
    const results = await Promise.allSettled([1, -1, 2].map(check));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('bad -1');
  });

  it('when a whole batch fails, runs each item alone so only the bad one fails', async () => {
    const calls: number[][] = [];
    const strict = createBatcher<number, number>({
      run: (items) => {
        calls.push(items);
        return items.includes(-1) ? Promise.reject(new Error('refused')) : Promise.resolve(items);
      },
    });
    const results = await Promise.allSettled([1, -1, 2].map(strict));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('refused');
    expect(calls).toEqual([[1, -1, 2], [1], [-1], [2]]);
    // The batcher keeps working afterwards.
    expect(await strict(3)).toBe(3);
  });
});
