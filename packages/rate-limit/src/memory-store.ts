import { MemoryStore, type Options, type Store } from 'express-rate-limit';

/**
 * express-rate-limit refuses one store instance in two limiters, yet a rebuilt limiter must
 * keep the hits counted by the one it replaces (a lowered limit applies to the current
 * window at once). Each limiter gets its own thin store; the counts live in one MemoryStore.
 */
export class CarriedOverMemoryStore implements Store {
  readonly localKeys = true;

  constructor(private readonly counts: MemoryStore) {}

  init(options: Options): void {
    this.counts.init(options);
  }

  get(key: string) { return this.counts.get(key); }
  increment(key: string) { return this.counts.increment(key); }
  decrement(key: string) { return this.counts.decrement(key); }
  resetKey(key: string) { return this.counts.resetKey(key); }
  resetAll() { return this.counts.resetAll(); }
  shutdown() { this.counts.shutdown(); }
}
