/** One webhook delivery as the store keeps it: the body is fixed when it is queued, so every attempt sends the same bytes. */
export interface StoredDelivery {
  id: string;
  url: string;
  event: string;
  payload: string;
  /** Attempts made, counting the one just claimed. */
  attempts: number;
  /**
   * The secret of the endpoint the delivery was queued for (null: that endpoint signs nothing);
   * undefined when it belongs to no endpoint, so the settings' secret signs it.
   */
  secret?: string | null;
  /**
   * Claimed to ask whether its waiting endpoint is back (`claimProbes`), not for a scheduled
   * attempt: a failure leaves its attempts and schedule as they were.
   */
  probe?: boolean;
}

export interface NewDelivery {
  id: string;
  url: string;
  event: string;
  payload: string;
  createdAt: Date;
  /** The endpoint it is queued for, when the store keeps endpoints (its secret signs it). */
  endpointId?: string | null;
}

export interface AttemptOutcome {
  id: string;
  /** The `attempts` the claim answered: a result for an attempt that is no longer the latest is dropped. */
  attempt: number;
  at: Date;
  responseCode: number | null;
  error: string | null;
}

/**
 * Where deliveries live between attempts (the app's `webhook_deliveries` table). The store is the
 * queue: a delivery is due when it is pending and its next retry time has come, and an instance
 * claims due ones for a lease, so each attempt is made by one instance.
 */
export interface WebhookDeliveryStore {
  insert(delivery: NewDelivery): Promise<void>;
  /**
   * Claims up to `limit` due deliveries until `leaseUntil` and counts an attempt on each. First
   * deliveries come before retries, so fresh events never wait behind a backlog.
   */
  claimDue(now: Date, limit: number, leaseUntil: Date): Promise<StoredDelivery[]>;
  /** `probe`: the delivery went through on a probe, which then counts as its last attempt. */
  markDelivered(outcome: AttemptOutcome & { probe?: boolean }): Promise<void>;
  /** `nextRetryAt` null: no attempts left (or never retried), the delivery is kept as failed. */
  markFailed(outcome: AttemptOutcome & { nextRetryAt: Date | null }): Promise<void>;
  /** A probe that failed: the answer is recorded; attempts and the next retry stay as they were. */
  markProbeFailed(outcome: AttemptOutcome): Promise<void>;
  /** Makes every pending delivery to `url` due at `now` (the endpoint is back). */
  releaseEndpoint(url: string, now: Date): Promise<number>;
  /**
   * For each endpoint whose pending deliveries all wait longer than `quietMs`, and none of which
   * was tried within the last `quietMs`, claims its earliest one until `leaseUntil` as a probe
   * (`probe: true`): one request per endpoint and period asks whether it is back, so a returned
   * endpoint gets its backlog (through `releaseEndpoint` on that success) within `quietMs`
   * instead of at the next backoff step, which may be an hour away. A probe counts no attempt
   * and moves no retry earlier, so the schedule still spans 24 hours while the endpoint is down.
   */
  claimProbes(now: Date, quietMs: number, leaseUntil: Date): Promise<StoredDelivery[]>;
}
