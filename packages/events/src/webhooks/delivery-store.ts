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
  markDelivered(outcome: AttemptOutcome): Promise<void>;
  /** `nextRetryAt` null: no attempts left (or never retried), the delivery is kept as failed. */
  markFailed(outcome: AttemptOutcome & { nextRetryAt: Date | null }): Promise<void>;
  /** Makes every pending delivery to `url` due at `now` (the endpoint is back). */
  releaseEndpoint(url: string, now: Date): Promise<number>;
  /**
   * For each endpoint whose pending deliveries all wait longer than `quietMs`, and none of which
   * was attempted within the last `quietMs`, makes its earliest one due now: one request per
   * endpoint and period asks whether it is back, so a returned endpoint gets its backlog (through
   * `releaseEndpoint` on that success) within `quietMs` instead of at the next backoff step, which
   * may be an hour away. Answers how many endpoints were probed.
   */
  probeWaitingEndpoints(now: Date, quietMs: number): Promise<number>;
}
