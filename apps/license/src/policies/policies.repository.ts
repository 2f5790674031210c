import { parseRow, parseRows, type Queryable, type RowOf, tableRows } from '@app/db';
import { z } from 'zod';
import { policies } from './policies.table.js';
import type { CreatePolicy } from './policies.schema.js';

/** What policySelect adds to a policy: its product's name, its entitlement codes (sorted) and how many licenses name it. */
const policyExtraRow = z.object({
  product_name: z.string(),
  entitlement_codes: z.array(z.string()),
  license_count: z.number(),
});
export type PolicyRow = RowOf<typeof policies> & z.infer<typeof policyExtraRow>;
/** Rows of policySelect, checked against the table and the columns it adds. */
const policyRows = tableRows<typeof policies, z.infer<typeof policyExtraRow>>(policies, policyExtraRow.shape);

const policySelect = `SELECT po.*, p.name AS product_name,
  ARRAY(SELECT e.code FROM policy_entitlements pe JOIN entitlements e ON e.id = pe.entitlement_id
        WHERE pe.policy_id = po.id ORDER BY e.code COLLATE "C") AS entitlement_codes,
  (SELECT count(*)::int FROM licenses l WHERE l.policy_id = po.id) AS license_count
  FROM policies po JOIN products p ON p.id = po.product_id`;

/** Policies newest first, of one product when given, whose name contains `q` (any case). */
export async function listPolicies(
  db: Queryable,
  query: { productId?: string; q?: string; limit?: number; skip?: number },
) {
  const pattern = query.q ? `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = 'WHERE ($1::uuid IS NULL OR po.product_id = $1) AND ($2::text IS NULL OR po.name ILIKE $2)';
  const [page, total] = await Promise.all([
    db.query(`${policySelect} ${where} ORDER BY po.created_at DESC, po.id LIMIT $3 OFFSET $4`, [
      query.productId ?? null,
      pattern,
      query.limit ?? null,
      query.skip ?? 0,
    ]),
    db.query(`SELECT count(*) AS total FROM policies po ${where}`, [query.productId ?? null, pattern]),
  ]);
  return { rows: policyRows(page.rows), total: parseRow(z.object({ total: z.number() }), total.rows).total };
}

/**
 * `lock: 'update'`: no license names it until the caller commits (a delete counts them);
 * `lock: 'share'`: it is not deleted until the caller commits (a license made from it).
 */
export async function findPolicy(
  db: Queryable,
  id: string,
  options: { lock?: 'update' | 'share' } = {},
): Promise<PolicyRow | undefined> {
  const lock = options.lock === 'update' ? 'FOR UPDATE OF po' : options.lock === 'share' ? 'FOR KEY SHARE OF po' : '';
  const { rows } = await db.query(`${policySelect} WHERE po.id = $1 ${lock}`, [id]);
  return policyRows(rows)[0];
}

type PolicyColumns = Omit<CreatePolicy, 'entitlements'>;

export async function insertPolicy(db: Queryable, input: PolicyColumns): Promise<string> {
  const { rows } = await db.query(
    `INSERT INTO policies (product_id, name, license_type, duration_days, ip_limit, hwid_limit, heartbeat_seconds, credits,
       grace_days, expiration_strategy, borrow_hours, sharing_address_limit)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
    [
      input.productId,
      input.name,
      input.licenseType,
      input.durationDays,
      input.ipLimit,
      input.hwidLimit,
      input.heartbeatSeconds,
      input.credits,
      input.graceDays,
      input.expirationStrategy,
      input.borrowHours,
      input.sharingAddressLimit,
    ],
  );
  return parseRow(z.object({ id: z.string() }), rows).id;
}

const columnOf: Record<keyof PolicyColumns, string> = {
  productId: 'product_id',
  name: 'name',
  licenseType: 'license_type',
  durationDays: 'duration_days',
  ipLimit: 'ip_limit',
  hwidLimit: 'hwid_limit',
  heartbeatSeconds: 'heartbeat_seconds',
  graceDays: 'grace_days',
  expirationStrategy: 'expiration_strategy',
  borrowHours: 'borrow_hours',
  sharingAddressLimit: 'sharing_address_limit',
  credits: 'credits',
};

/** Writes the fields given (undefined: unchanged; null: cleared). */
export async function updatePolicy(db: Queryable, id: string, input: Partial<PolicyColumns>): Promise<void> {
  const fields = (Object.keys(columnOf) as Array<keyof PolicyColumns>).filter((field) => input[field] !== undefined);
  const sets = fields.map((field, index) => `${columnOf[field]} = $${index + 2}`);
  await db.query(`UPDATE policies SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1`, [
    id,
    ...fields.map((field) => input[field]),
  ]);
}

export async function replacePolicyEntitlements(
  db: Queryable,
  policyId: string,
  entitlementIds: string[],
): Promise<void> {
  await db.query('DELETE FROM policy_entitlements WHERE policy_id = $1 AND NOT (entitlement_id = ANY($2::uuid[]))', [
    policyId,
    entitlementIds,
  ]);
  await db.query(
    `INSERT INTO policy_entitlements (policy_id, entitlement_id) SELECT $1, e FROM unnest($2::uuid[]) AS e
     ON CONFLICT DO NOTHING`,
    [policyId, entitlementIds],
  );
}

export async function deletePolicy(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM policies WHERE id = $1', [id]);
}

export async function productName(db: Queryable, productId: string): Promise<string | undefined> {
  const { rows } = await db.query('SELECT name FROM products WHERE id = $1', [productId]);
  return parseRows(z.object({ name: z.string() }), rows)[0]?.name;
}
