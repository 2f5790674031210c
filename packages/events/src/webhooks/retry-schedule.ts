/**
 * When a failed webhook delivery is tried again: the delay after the n-th failed attempt is
 * `delaysMs[n - 1]`; after the last one the delivery is kept as failed. Deterministic (no
 * jitter), so the README's table is exactly what happens.
 */
export interface RetrySchedule {
  delaysMs: readonly number[];
}

const second = 1000;
const firstDelayMs = 10 * second;
const maxDelayMs = 3600 * second;
/** The retries must span at least this long (decisions: "Webhook retries span at least 24 hours"). */
export const minimumRetrySpanMs = 24 * 3600 * second;

/**
 * 10 s, doubling (20 s, 40 s ... 2,560 s), capped at 1 hour, with as many hourly retries as it
 * takes to span 24 hours: 32 retries (33 attempts), the last one 24 h 25 min after the first
 * attempt. `retries` above that adds more hourly retries; below it is raised to it.
 */
export function webhookRetrySchedule(retries = 0): RetrySchedule {
  const delaysMs: number[] = [];
  let total = 0;
  while (total < minimumRetrySpanMs || delaysMs.length < retries) {
    const delay = Math.min(firstDelayMs * 2 ** delaysMs.length, maxDelayMs);
    delaysMs.push(delay);
    total += delay;
  }
  return { delaysMs };
}

/** The same schedule `factor` times as fast (tests compress 24 hours into seconds). */
export function scaleRetrySchedule(schedule: RetrySchedule, factor: number): RetrySchedule {
  return { delaysMs: schedule.delaysMs.map((delay) => Math.max(1, Math.round(delay * factor))) };
}
