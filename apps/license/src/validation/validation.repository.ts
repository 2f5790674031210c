import { createBatcher, isTransientDatabaseError, type Queryable } from '@app/db';
import type { LicenseType } from '../licenses/licenses.table.js';

export interface ValidationRow {
  id: string;
  key: string;
  active: boolean;
  expires_at: Date | null;
  license_type: LicenseType;
  ip_limit: number;
  hwid_limit: number;
  used_ips: string[];
  used_hwids: string[];
  credits_total: number;
  credits_used: number;
  error: string | null;
  violation_count: number | null;
  /** The hardware id became a new machine; machines of the license whose floating seats lapsed to make room. */
  machine_added: boolean;
  lapsed_hwids: string[];
  /** The effective entitlements, sorted (on success and on `Entitlement missing`); the codes asked for that it lacks. */
  entitlements: string[] | null;
  policy_id: string | null;
  policy_name: string | null;
  missing_entitlements: string[] | null;
  product_id: string;
  /** Set while the license (or a child's master) validates in its grace days: when they end. */
  grace_ends_at: Date | null;
  /** True when a `maintain` license (or a child's master) validates past the end of its term. */
  expired: boolean;
}

/** `entitlements`: the codes the application asks for (each must be effective), when it asks. */
export interface ValidationRequest {
  key: string;
  ip: string | null;
  hwid: string | null;
  entitlements?: string[];
}

export const limitErrors = ['IP limit exceeded', 'HWID limit exceeded'];

/**
 * Validations that arrive together go to the database together: one call of
 * `license_validate_batch_v3` (validate-batch.sql, migration 0020) reads, decides, updates the lists and credits and
 * records every attempt for the whole batch in one round trip and one commit. Each item is
 * decided exactly as if it were alone, in arrival order per license, so limits stay exact.
 * No row back (undefined) means the key is unknown.
 *
 * Two batches run at once: while one is in the database the next one gathers. A batch the
 * database refuses (say, a deadlock with an admin's bulk update) is rolled back whole and its
 * items are run again one by one, so nothing is lost or counted twice.
 *
 * Transient failures: the pool repeats the call once when the database says it did not commit
 * (a terminated backend, a deadlock: the function is one statement, all or nothing). When the
 * connection died without an answer the batch may have committed (credits spent, attempts
 * recorded), so it is not repeated, and neither is a batch that failed twice: every item of it
 * fails with the transient error (503 with Retry-After), never run again one by one.
 */
export function createValidationRepository(deps: {
  db: Queryable;
  now: () => Date;
  concurrency?: number;
  maxBatch?: number;
}) {
  const runBatch = async (items: ValidationRequest[]): Promise<Array<ValidationRow | undefined | Error>> => {
    let rows: Array<ValidationRow & { n: number }>;
    try {
      // row-check: hot path, asserted for speed
      ({ rows } = await deps.db.query<ValidationRow & { n: number }>({
        name: 'license-validate-batch-v3',
        text: 'SELECT * FROM license_validate_batch_v3($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz)',
        // Codes hold no comma (entitlement codes are letters, digits, `_`, `.`, `-`): one text per item.
        values: [
          items.map((item) => item.key),
          items.map((item) => item.ip),
          items.map((item) => item.hwid),
          items.map((item) => item.entitlements?.join(',') ?? null),
          deps.now(),
        ],
      }));
    } catch (error) {
      if (isTransientDatabaseError(error)) return items.map(() => error as Error);
      throw error;
    }
    const answers = new Array<ValidationRow | undefined | Error>(items.length);
    for (const row of rows) answers[row.n - 1] = row.id === null ? undefined : row;
    return answers;
  };
  const validateAndRecord = createBatcher({
    run: runBatch,
    concurrency: deps.concurrency ?? 2,
    maxBatch: deps.maxBatch ?? 256,
  });
  /**
   * The reason an admin gave for the suspension that refused a license: its own, or its master's
   * when the master is the suspended one. Read only after a `License suspended` verdict, so the
   * hot path (and the batch function) stays as it is; a reactivation in between reads null.
   */
  const suspendReason = async (licenseId: string): Promise<string | null> => {
    // row-check: hot path, asserted for speed
    const { rows } = await deps.db.query<{ reason: string | null }>({
      name: 'license-suspend-reason',
      text: `SELECT COALESCE(CASE WHEN l.suspended THEN l.suspend_reason END, CASE WHEN m.suspended THEN m.suspend_reason END) AS reason
             FROM licenses l LEFT JOIN licenses m ON m.id = l.parent_id WHERE l.id = $1`,
      values: [licenseId],
    });
    const reason = rows[0]?.reason?.trim();
    return reason ? reason : null;
  };
  return { validateAndRecord, suspendReason };
}
export type ValidationRepository = ReturnType<typeof createValidationRepository>;
