import type { Queryable } from '@app/db';
import type { LicenseType } from '../licenses/licenses.table.js';

export interface ValidationRow {
  id: string; key: string; active: boolean; expires_at: Date | null; license_type: LicenseType;
  ip_limit: number; hwid_limit: number; used_ips: string[]; used_hwids: string[];
  credits_total: number; credits_used: number; error: string | null; violation_count: number | null;
}

export const limitErrors = ['IP limit exceeded', 'HWID limit exceeded'];

/**
 * One statement, one round trip: read the license, decide, update the lists and credits when
 * they change, record the attempt.
 *
 * The common path (a known IP and hardware id on a license without credits) changes nothing
 * on the license: it reads the row without locking it and only appends the usage record. When
 * the answer depends on the lists or credits (a new IP or hardware id, a credit to use), the
 * row is locked: `FOR UPDATE` in READ COMMITTED waits for a concurrent validation of the same
 * license and then returns the row as that one committed it, so the verdict sees the current
 * lists and credits, and the check and the add are one atomic step. (Lists only grow between
 * admin actions, so a value the unlocked read saw in a list is still there.)
 *
 * Failure checks run in the order a user expects: revoked, suspended, not active, expired,
 * master, credits, IP limit, HWID limit. Unknown keys are recorded too, with a null license
 * id. No row back means the key is unknown.
 */
const validateSql = `
WITH snap AS (
  SELECT id, key, active, suspended, revoked, expires_at, license_type, ip_limit, hwid_limit,
         used_ips, used_hwids, credits_total, credits_used, parent_id
  FROM licenses WHERE key = $1::text
),
locked AS (
  SELECT l.id, l.key, l.active, l.suspended, l.revoked, l.expires_at, l.license_type, l.ip_limit, l.hwid_limit,
         l.used_ips, l.used_hwids, l.credits_total, l.credits_used, l.parent_id
  FROM licenses l JOIN snap s ON s.id = l.id
  WHERE (($2::text IS NOT NULL AND NOT ($2::text = ANY (s.used_ips)))
      OR ($3::text IS NOT NULL AND NOT ($3::text = ANY (s.used_hwids)))
      OR s.license_type = 'consumption')
  FOR UPDATE OF l
),
lic AS (
  SELECT * FROM locked
  UNION ALL
  SELECT * FROM snap WHERE NOT EXISTS (SELECT 1 FROM locked)
),
verdict AS (
  SELECT lic.*, EXISTS (SELECT 1 FROM locked) AS is_locked, CASE
    WHEN lic.revoked THEN 'License revoked'
    WHEN lic.suspended THEN 'License suspended'
    WHEN NOT lic.active THEN 'License not active'
    WHEN lic.expires_at IS NOT NULL AND lic.expires_at <= $4::timestamptz THEN 'License expired'
    -- A child is valid only while its master is: it answers with the master's own state.
    WHEN master.error IS NOT NULL THEN master.error
    WHEN lic.license_type = 'consumption' AND lic.credits_used >= lic.credits_total THEN 'No credits remaining'
    WHEN $2::text IS NOT NULL AND lic.ip_limit > 0 AND NOT ($2::text = ANY (lic.used_ips))
      AND cardinality(lic.used_ips) >= lic.ip_limit THEN 'IP limit exceeded'
    WHEN $3::text IS NOT NULL AND lic.hwid_limit > 0 AND NOT ($3::text = ANY (lic.used_hwids))
      AND cardinality(lic.used_hwids) >= lic.hwid_limit THEN 'HWID limit exceeded'
  END AS error
  FROM lic
  LEFT JOIN LATERAL (
    SELECT CASE
      WHEN m.id IS NULL OR NOT m.active THEN 'License not active'
      WHEN m.revoked THEN 'License revoked'
      WHEN m.suspended THEN 'License suspended'
      WHEN m.expires_at IS NOT NULL AND m.expires_at <= $4::timestamptz THEN 'License expired'
    END AS error
    FROM (SELECT lic.parent_id) parent LEFT JOIN licenses m ON m.id = parent.parent_id
    WHERE lic.parent_id IS NOT NULL
  ) master ON true
),
updated AS (
  UPDATE licenses t SET
    used_ips = CASE WHEN v.error IS NULL AND $2::text IS NOT NULL AND NOT ($2::text = ANY (t.used_ips))
      THEN array_append(t.used_ips, $2::text) ELSE t.used_ips END,
    used_hwids = CASE WHEN v.error IS NULL AND $3::text IS NOT NULL AND NOT ($3::text = ANY (t.used_hwids))
      THEN array_append(t.used_hwids, $3::text) ELSE t.used_hwids END,
    credits_used = t.credits_used + CASE WHEN v.error IS NULL AND t.license_type = 'consumption' THEN 1 ELSE 0 END,
    violation_count = t.violation_count + CASE WHEN v.error IS NULL THEN 0 ELSE 1 END,
    last_validated_at = CASE WHEN v.error IS NULL THEN $4::timestamptz ELSE t.last_validated_at END
  FROM verdict v
  -- Only a locked row is written: its values are the ones the verdict saw.
  WHERE t.id = v.id AND v.is_locked AND (v.error IS NULL OR v.error IN ('IP limit exceeded', 'HWID limit exceeded'))
  RETURNING t.used_ips, t.used_hwids, t.credits_used, t.violation_count
),
recorded AS (
  INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at)
  SELECT v.id, $2::text, $3::text,
    CASE WHEN v.id IS NULL THEN 'invalid' WHEN v.error IS NULL THEN 'success'
         WHEN v.error IN ('IP limit exceeded', 'HWID limit exceeded') THEN 'blocked' ELSE 'invalid' END,
    CASE WHEN v.id IS NULL THEN 'License not found' ELSE v.error END,
    $4::timestamptz
  FROM (SELECT 1) AS one LEFT JOIN verdict v ON true
)
SELECT v.id, v.key, v.active, v.expires_at, v.license_type, v.ip_limit, v.hwid_limit, v.error, v.credits_total,
  coalesce(u.used_ips, v.used_ips) AS used_ips, coalesce(u.used_hwids, v.used_hwids) AS used_hwids,
  coalesce(u.credits_used, v.credits_used) AS credits_used, u.violation_count
FROM verdict v LEFT JOIN updated u ON true`;

export async function validateAndRecord(db: Queryable, input: { key: string; ip: string | null; hwid: string | null; now: Date }): Promise<ValidationRow | undefined> {
  const { rows } = await db.query<ValidationRow>({ name: 'license-validate', text: validateSql, values: [input.key, input.ip, input.hwid, input.now] });
  return rows[0];
}
