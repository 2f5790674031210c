/** A key's hits in its current window and when that window ends (ms since the epoch). */
export interface WindowCount {
  totalHits: number;
  resetMs: number;
}

/**
 * In-process counts of a fixed window per key: a key's window starts at its first hit and lasts
 * `windowMs` (express-rate-limit's MemoryStore rule). Counting is synchronous, so a burst of
 * simultaneous requests is counted exactly. A rebuilt limiter keeps using the same counts, so a
 * lowered limit applies to the hits of the current window at once.
 *
 * Ended windows are dropped in one sweep at most once a minute, so the map holds only the keys
 * seen lately.
 */
export class WindowCounts {
  private readonly counts = new Map<string, WindowCount>();
  private nextSweepMs = 0;

  hit(key: string, windowMs: number, nowMs: number): WindowCount {
    if (nowMs >= this.nextSweepMs) this.sweep(nowMs);
    let count = this.counts.get(key);
    if (count === undefined || count.resetMs <= nowMs) {
      count = { totalHits: 0, resetMs: nowMs + windowMs };
      this.counts.set(key, count);
    }
    count.totalHits += 1;
    return count;
  }

  private sweep(nowMs: number): void {
    for (const [key, count] of this.counts) if (count.resetMs <= nowMs) this.counts.delete(key);
    this.nextSweepMs = nowMs + 60_000;
  }
}
