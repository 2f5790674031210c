import { eq, sql } from 'drizzle-orm';
import { parseRow, parseRows, type Queryable, queryBuilder, type RowOf, run, tableRows } from '@app/db';
import { z } from 'zod';
import { licenseCountsAt, totalLicenseCounts } from './license-counts.repository.js';
import { encodeLicenseCursor, type LicenseListCursor } from './list-cursor.js';
import { licenseMembers, licenses, licenseTypes } from './licenses.table.js';
import type { LicenseMemberInput, LicenseRow, ListLicenses, ScannedLicense } from './licenses.schema.js';

// The license row's type is shared with other features through licenses.schema.ts; the
// licenses feature's own files name it here too.
export type { LicenseRow };
export type MemberRow = RowOf<typeof licenseMembers>;

/** Rows of licenseSelect (and the list's cursor column), checked against the table and the joined names. */
export const licenseRows = tableRows<typeof licenses, Omit<LicenseRow, keyof RowOf<typeof licenses>>>(licenses, {
  product_name: z.string(),
  product_description: z.string(),
  product_prefix: z.string(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  policy_name: z.string().nullable(),
  policy_entitlements: z.array(z.string()),
  own_entitlements: z.array(z.string()),
  policy_sharing_address_limit: z.number().nullable(),
  sharing_suspected: z.boolean(),
});
const memberRows = tableRows(licenseMembers);
const idRow = z.object({ id: z.string() });
const listedRows = (rows: unknown[]) =>
  licenseRows(rows).map((row) => ({ ...row, cursor_at: z.string().parse((row as { cursor_at?: unknown }).cursor_at) }));

export const licenseSelect = `SELECT l.*, p.name AS product_name, p.description AS product_description, p.license_prefix AS product_prefix,
  c.name AS customer_name, c.email AS customer_email, po.name AS policy_name,
  po.sharing_address_limit AS policy_sharing_address_limit,
  EXISTS (SELECT 1 FROM license_sharing_flags f
          WHERE f.license_id = l.id AND f.day >= (now() AT TIME ZONE 'UTC')::date - 1) AS sharing_suspected,
  ARRAY(SELECT e.code FROM policy_entitlements pe JOIN entitlements e ON e.id = pe.entitlement_id
        WHERE pe.policy_id = l.policy_id ORDER BY e.code COLLATE "C") AS policy_entitlements,
  ARRAY(SELECT e.code FROM license_entitlements le JOIN entitlements e ON e.id = le.entitlement_id
        WHERE le.license_id = l.id ORDER BY e.code COLLATE "C") AS own_entitlements
  FROM licenses l JOIN products p ON p.id = l.product_id LEFT JOIN customers c ON c.id = l.customer_id
  LEFT JOIN policies po ON po.id = l.policy_id`;

/** A license of this customer (the customer portal's), or undefined: another customer's is never read. */
export async function findLicenseOfCustomer(
  db: Queryable,
  customerId: string,
  licenseId: string,
): Promise<LicenseRow | undefined> {
  const { rows } = await db.query(`${licenseSelect} WHERE l.customer_id = $1 AND l.id = $2`, [customerId, licenseId]);
  return licenseRows(rows)[0];
}

/** Every license of this customer, newest first. */
export async function listLicensesOfCustomer(db: Queryable, customerId: string): Promise<LicenseRow[]> {
  const { rows } = await db.query(`${licenseSelect} WHERE l.customer_id = $1 ORDER BY l.created_at DESC, l.id`, [
    customerId,
  ]);
  return licenseRows(rows);
}

export async function findLicense(
  db: Queryable,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<LicenseRow | undefined> {
  const { rows } = await db.query(`${licenseSelect} WHERE l.id = $1 ${options.forUpdate ? 'FOR UPDATE OF l' : ''}`, [
    id,
  ]);
  return licenseRows(rows)[0];
}

export async function findLicenseByKey(
  db: Queryable,
  key: string,
  options: { forUpdate?: boolean } = {},
): Promise<LicenseRow | undefined> {
  const { rows } = await db.query(`${licenseSelect} WHERE l.key = $1 ${options.forUpdate ? 'FOR UPDATE OF l' : ''}`, [
    key,
  ]);
  return licenseRows(rows)[0];
}

/** created_at with its microseconds, as the list's cursor keeps it. */
const cursorAt = `to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at`;

/** A page of licenses newest first; `after` is the decoded `cursor` of the query. */
export async function listLicenses(db: Queryable, query: ListLicenses, now: Date, after?: LicenseListCursor) {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replaceAll('?', `$${params.length}`));
  };
  if (query.product) add('l.product_id = ?', query.product);
  if (query.customer) add('l.customer_id = ?', query.customer);
  if (query.parent) add('l.parent_id = ?', query.parent);
  if (query.licenseType) add('l.license_type = ?', query.licenseType);
  if (query.active !== undefined) add('l.active = ?', query.active);
  if (query.suspended !== undefined) add('l.suspended = ?', query.suspended);
  if (query.revoked !== undefined) add('l.revoked = ?', query.revoked);
  if (query.expired !== undefined) add(`(l.expires_at IS NOT NULL AND l.expires_at <= ?) = ${query.expired}`, now);
  if (query.expiresWithinDays !== undefined) {
    add('l.expires_at > ?', now);
    add('l.expires_at <= ?', new Date(now.getTime() + query.expiresWithinDays * 86_400_000));
  }
  if (query.search) add('l.key ILIKE ?', `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  // After the cursor's row in (created_at DESC, id) order: an index range on created_at, the
  // ties of its instant filtered by id.
  const pageWhere = [...where];
  const pageParams = [...params];
  if (after) {
    pageParams.push(after.createdAt, after.id);
    const [at, id] = [`$${pageParams.length - 1}::timestamptz`, `$${pageParams.length}::uuid`];
    pageWhere.push(`l.created_at <= ${at} AND (l.created_at < ${at} OR l.id > ${id})`);
  }
  const pageClause = pageWhere.length ? `WHERE ${pageWhere.join(' AND ')}` : '';
  // Without a filter, or filtered by product and type only, the total comes from the license
  // counters instead of counting up to a million rows.
  const countable = Object.entries({
    ...query,
    limit: undefined,
    skip: undefined,
    cursor: undefined,
    product: undefined,
    licenseType: undefined,
  }).every(([, value]) => value === undefined);
  const counted = async () => {
    const rows = await licenseCountsAt(db, now, query.product);
    return totalLicenseCounts(query.licenseType ? rows.filter((row) => row.licenseType === query.licenseType) : rows)
      .total;
  };
  const [page, total] = await Promise.all([
    db.query(
      `${licenseSelect.replace('SELECT l.*,', `SELECT l.*, ${cursorAt},`)} ${pageClause}
       ORDER BY l.created_at DESC, l.id LIMIT $${pageParams.length + 1} OFFSET $${pageParams.length + 2}`,
      [...pageParams, query.limit, query.skip],
    ),
    countable
      ? counted()
      : db
          .query(`SELECT count(*) AS total FROM licenses l ${clause}`, params)
          .then((result) => parseRow(z.object({ total: z.number() }), result.rows).total),
  ]);
  const rows = listedRows(page.rows);
  const last = rows.length === query.limit ? rows.at(-1) : undefined;
  return {
    rows,
    total,
    nextCursor: last ? encodeLicenseCursor({ createdAt: last.cursor_at, id: last.id }) : null,
  };
}

type LicenseInsert = typeof licenses.$inferInsert;

/** The columns an admin sets on a license: all of them at its creation, any of them in a change. */
type EditableColumns =
  | 'customerId'
  | 'parentId'
  | 'licenseType'
  | 'active'
  | 'expiresAt'
  | 'ipLimit'
  | 'hwidLimit'
  | 'heartbeatSeconds'
  | 'graceDays'
  | 'expirationStrategy'
  | 'borrowHours'
  | 'sharingAddressLimit'
  | 'creditsTotal'
  | 'convertToType'
  | 'autoConvert'
  | 'convertDurationDays'
  | 'policyId';

/** A new license's columns (its key, product and metadata besides the editable ones). */
export type LicenseValues = Pick<LicenseInsert, 'key' | 'productId' | 'metadata'> &
  Required<Pick<LicenseInsert, EditableColumns>>;

export async function insertLicense(db: Queryable, values: LicenseValues): Promise<string> {
  const { rows } = await db.query(
    `INSERT INTO licenses (key, product_id, customer_id, parent_id, license_type, active, expires_at, ip_limit, hwid_limit,
       credits_total, convert_to_type, auto_convert, convert_duration_days, metadata, heartbeat_seconds, policy_id,
       grace_days, expiration_strategy, borrow_hours, sharing_address_limit)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) RETURNING id`,
    [
      values.key,
      values.productId,
      values.customerId,
      values.parentId,
      values.licenseType,
      values.active,
      values.expiresAt,
      values.ipLimit,
      values.hwidLimit,
      values.creditsTotal,
      values.convertToType,
      values.autoConvert,
      values.convertDurationDays,
      JSON.stringify(values.metadata),
      values.heartbeatSeconds,
      values.policyId,
      values.graceDays,
      values.expirationStrategy,
      values.borrowHours,
      values.sharingAddressLimit,
    ],
  );
  return parseRow(idRow, rows).id;
}

/** The columns an admin's change (update, suspend, reactivate, revoke) may set; undefined ones are left. */
export type LicenseChanges = Partial<
  Pick<
    LicenseInsert,
    | EditableColumns
    | 'metadata'
    | 'suspended'
    | 'suspendReason'
    | 'suspendedAt'
    | 'revoked'
    | 'revokeReason'
    | 'revokedAt'
  >
>;

/** Writes the given changes with Drizzle's typed builder; nothing (not even updated_at) when there are none. */
export async function updateLicense(db: Queryable, id: string, changes: LicenseChanges): Promise<void> {
  if (Object.values(changes).every((value) => value === undefined)) return;
  await run(
    db,
    queryBuilder
      .update(licenses)
      .set({ ...changes, updatedAt: sql`now()` })
      .where(eq(licenses.id, id)),
  );
}

export async function deleteLicense(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM licenses WHERE id = $1', [id]);
}

/**
 * Adds `days` to the expiry, counted from now when the license has expired (or has none), adds
 * credits, and clears the expiry notice so the next expiry is announced again.
 */
export async function extendLicense(
  db: Queryable,
  id: string,
  days: number,
  credits: number,
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE licenses SET
       expires_at = GREATEST(COALESCE(expires_at, $4), $4) + make_interval(days => $2::int),
       credits_total = credits_total + $3, expired_notified_at = NULL, updated_at = $4
     WHERE id = $1`,
    [id, days, credits, now],
  );
}

const scannedColumns = 'id, key, expires_at, customer_id, product_id, license_type';
const scannedRow: z.ZodType<ScannedLicense> = z.object({
  id: z.string(),
  key: z.string(),
  expires_at: z.date().nullable(),
  customer_id: z.string().nullable(),
  product_id: z.string(),
  license_type: z.enum(licenseTypes),
});

/** Trials past their end with automatic conversion on become their full type; each converts once. */
export async function convertDueTrials(db: Queryable, now: Date): Promise<ScannedLicense[]> {
  const { rows } = await db.query(
    `UPDATE licenses SET
       license_type = COALESCE(convert_to_type, 'fixed'), converted_at = $1, updated_at = $1, expired_notified_at = NULL,
       expires_at = CASE WHEN convert_duration_days IS NULL THEN NULL ELSE $1 + make_interval(days => convert_duration_days) END
     WHERE license_type = 'trial' AND auto_convert AND converted_at IS NULL AND NOT revoked AND NOT suspended
       AND expires_at IS NOT NULL AND expires_at <= $1
     RETURNING ${scannedColumns}`,
    [now],
  );
  return parseRows(scannedRow, rows);
}

/**
 * Marks licenses that have expired and were not announced yet, answering them: the UPDATE is the
 * claim, so each license is announced once even when scans overlap. A notice older than the
 * current expiry belongs to an earlier expiry (the license was extended since), so the new one
 * is announced too.
 */
export async function claimExpiredLicenses(db: Queryable, now: Date, limit: number): Promise<ScannedLicense[]> {
  const { rows } = await db.query(
    `UPDATE licenses SET expired_notified_at = $1
     WHERE id IN (
       SELECT id FROM licenses WHERE expires_at <= $1 AND (expired_notified_at IS NULL OR expired_notified_at < expires_at) AND NOT revoked
       ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING ${scannedColumns}`,
    [now, limit],
  );
  return parseRows(scannedRow, rows);
}

export async function rotateKey(db: Queryable, oldKey: string, newKey: string): Promise<string | undefined> {
  const { rows } = await db.query('UPDATE licenses SET key = $2, updated_at = now() WHERE key = $1 RETURNING id', [
    oldKey,
    newKey,
  ]);
  return parseRows(idRow, rows)[0]?.id;
}

/** A license's id and the IPs and hardware ids it had before they were cleared. */
const clearedRow = z.object({ id: z.string(), used_ips: z.array(z.string()), used_hwids: z.array(z.string()) });

export async function clearRestrictions(db: Queryable, key: string): Promise<z.infer<typeof clearedRow> | undefined> {
  const { rows } = await db.query(
    `WITH old AS (SELECT id, used_ips, used_hwids FROM licenses WHERE key = $1 FOR UPDATE)
     UPDATE licenses l SET used_ips = '{}', used_hwids = '{}', updated_at = now()
     FROM old WHERE l.id = old.id RETURNING l.id, old.used_ips, old.used_hwids`,
    [key],
  );
  return parseRows(clearedRow, rows)[0];
}

/** Takes one IP or hardware id off the license's recorded ones; answers whether it was there. */
export async function removeBinding(
  db: Queryable,
  id: string,
  binding: { ip: string } | { hwid: string },
): Promise<boolean> {
  const [column, value] = 'ip' in binding ? ['used_ips', binding.ip] : ['used_hwids', binding.hwid];
  const { rowCount } = await db.query(
    `UPDATE licenses SET ${column} = array_remove(${column}, $2), updated_at = now() WHERE id = $1 AND $2 = ANY(${column})`,
    [id, value],
  );
  return (rowCount ?? 0) > 0;
}

/** Makes these (ids) the license's own entitlements. */
export async function replaceLicenseEntitlements(
  db: Queryable,
  licenseId: string,
  entitlementIds: string[],
): Promise<void> {
  await db.query('DELETE FROM license_entitlements WHERE license_id = $1 AND NOT (entitlement_id = ANY($2::uuid[]))', [
    licenseId,
    entitlementIds,
  ]);
  await db.query(
    `INSERT INTO license_entitlements (license_id, entitlement_id) SELECT $1, e FROM unnest($2::uuid[]) AS e
     ON CONFLICT DO NOTHING`,
    [licenseId, entitlementIds],
  );
}

export async function listMembers(db: Queryable, licenseId: string): Promise<MemberRow[]> {
  const { rows } = await db.query('SELECT * FROM license_members WHERE license_id = $1 ORDER BY created_at, email', [
    licenseId,
  ]);
  return memberRows(rows);
}

export async function replaceMembers(db: Queryable, licenseId: string, members: LicenseMemberInput[]): Promise<void> {
  await db.query('DELETE FROM license_members WHERE license_id = $1', [licenseId]);
  if (!members.length) return;
  await db.query(
    `INSERT INTO license_members (license_id, email, user_id, role)
     SELECT $1, m.email, m.user_id, m.role FROM unnest($2::text[], $3::text[], $4::text[]) AS m(email, user_id, role)
     ON CONFLICT (license_id, email) DO UPDATE SET user_id = excluded.user_id, role = excluded.role`,
    [
      licenseId,
      members.map((m) => m.email.toLowerCase()),
      members.map((m) => m.userId ?? null),
      members.map((m) => m.role),
    ],
  );
}

const customerCountRow = z.object({ customer_id: z.string(), n: z.number() });

/** How many licenses each of these customers has (customers without one are absent). */
export async function countLicensesOfCustomers(db: Queryable, customerIds: string[]): Promise<Map<string, number>> {
  if (!customerIds.length) return new Map();
  const { rows } = await db.query(
    'SELECT customer_id, count(*)::int AS n FROM licenses WHERE customer_id = ANY($1::uuid[]) GROUP BY 1',
    [customerIds],
  );
  return new Map(rows.map((row) => customerCountRow.parse(row)).map((row) => [row.customer_id, row.n]));
}

/** Whether any license belongs to the product (the products feature asks before a delete). */
export async function productHasLicenses(db: Queryable, productId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM licenses WHERE product_id = $1 LIMIT 1', [productId]);
  return (rowCount ?? 0) > 0;
}
