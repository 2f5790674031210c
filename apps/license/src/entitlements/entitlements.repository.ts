import { parseRow, parseRows, type Queryable, type RowOf, tableRows } from '@app/db';
import { z } from 'zod';
import { entitlements } from './entitlements.table.js';
import type { CreateEntitlement, UpdateEntitlement } from './entitlements.schema.js';

export type EntitlementRow = RowOf<typeof entitlements>;

/** Rows of entitlements, checked against the table. */
const entitlementRows = tableRows(entitlements);

/** Entitlements whose code or name contains `q` (any case), by code. */
export async function listEntitlements(db: Queryable, query: { q?: string; limit?: number; skip?: number } = {}) {
  const pattern = query.q ? `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = 'WHERE ($1::text IS NULL OR e.code ILIKE $1 OR e.name ILIKE $1)';
  const [page, total] = await Promise.all([
    db.query(`SELECT e.* FROM entitlements e ${where} ORDER BY e.code COLLATE "C" LIMIT $2 OFFSET $3`, [
      pattern,
      query.limit ?? null,
      query.skip ?? 0,
    ]),
    db.query(`SELECT count(*) AS total FROM entitlements e ${where}`, [pattern]),
  ]);
  return { rows: entitlementRows(page.rows), total: parseRow(z.object({ total: z.number() }), total.rows).total };
}

const codeAndName = z.object({ code: z.string(), name: z.string() });

/** The name of each of these codes that exists, for pages that show what a license grants. */
export async function entitlementNames(db: Queryable, codes: string[]): Promise<Map<string, string>> {
  if (!codes.length) return new Map();
  const { rows } = await db.query('SELECT code, name FROM entitlements WHERE code = ANY($1::text[])', [codes]);
  return new Map(parseRows(codeAndName, rows).map((row) => [row.code, row.name]));
}

/** `lock`: FOR UPDATE, so no policy or license is given it until the caller commits (a delete). */
export async function findEntitlement(
  db: Queryable,
  id: string,
  options: { lock?: boolean } = {},
): Promise<EntitlementRow | undefined> {
  const { rows } = await db.query(`SELECT * FROM entitlements WHERE id = $1 ${options.lock ? 'FOR UPDATE' : ''}`, [id]);
  return entitlementRows(rows)[0];
}

/**
 * The entitlements of these codes, locked FOR SHARE until the caller commits: a delete of one of
 * them waits, then sees the caller's links and answers that it is in use.
 */
export async function findEntitlementsByCode(db: Queryable, codes: string[]): Promise<EntitlementRow[]> {
  if (!codes.length) return [];
  const { rows } = await db.query('SELECT * FROM entitlements WHERE code = ANY($1::text[]) ORDER BY code FOR SHARE', [
    codes,
  ]);
  return entitlementRows(rows);
}

export async function insertEntitlement(db: Queryable, input: CreateEntitlement): Promise<EntitlementRow> {
  const { rows } = await db.query('INSERT INTO entitlements (code, name) VALUES ($1, $2) RETURNING *', [
    input.code,
    input.name,
  ]);
  return entitlementRows(rows)[0]!;
}

export async function updateEntitlement(
  db: Queryable,
  id: string,
  input: UpdateEntitlement,
): Promise<EntitlementRow | undefined> {
  const { rows } = await db.query(
    'UPDATE entitlements SET code = coalesce($2, code), name = coalesce($3, name), updated_at = now() WHERE id = $1 RETURNING *',
    [id, input.code ?? null, input.name ?? null],
  );
  return entitlementRows(rows)[0];
}

export async function deleteEntitlement(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM entitlements WHERE id = $1', [id]);
}

/** Whether a policy or a license still grants it. */
export async function entitlementInUse(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT EXISTS (SELECT 1 FROM policy_entitlements WHERE entitlement_id = $1)
         OR EXISTS (SELECT 1 FROM license_entitlements WHERE entitlement_id = $1) AS used`,
    [id],
  );
  return parseRow(z.object({ used: z.boolean() }), rows).used;
}
