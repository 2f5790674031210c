import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import type { LicenseExportFilter, TransactionExportFilter } from './exports.schema.js';

// Exports read in keyset batches on the pool: each batch is one short query, so no client (and,
// with the embedded database, not the one pooled connection) is held while the response is
// written. Batches are not one snapshot: a row changed during a long export shows its state
// at the time its batch was read.

const licenseExportRow = z.object({
  id: z.string(),
  key: z.string(),
  productId: z.string(),
  productName: z.string(),
  customerId: z.string().nullable(),
  customerName: z.string().nullable(),
  customerEmail: z.string().nullable(),
  licenseType: z.string(),
  active: z.boolean(),
  suspended: z.boolean(),
  revoked: z.boolean(),
  expiresAt: z.date().nullable(),
  ipLimit: z.number(),
  hwidLimit: z.number(),
  usedIps: z.array(z.string()),
  usedHwids: z.array(z.string()),
  creditsTotal: z.number(),
  creditsUsed: z.number(),
  parentId: z.string().nullable(),
  createdAt: z.date(),
});
export type LicenseExportRow = z.infer<typeof licenseExportRow>;

function licenseWhere(filter: LicenseExportFilter, params: unknown[]): string[] {
  const where: string[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.product) add('l.product_id = ?', filter.product);
  if (filter.customer) add('l.customer_id = ?', filter.customer);
  if (filter.active !== undefined) add('l.active = ?', filter.active);
  if (filter.licenseType) add('l.license_type = ?', filter.licenseType);
  return where;
}

/** Licenses in key order (the unique key index makes every batch an index range scan). */
export async function* licenseBatches(
  db: Queryable,
  filter: LicenseExportFilter,
  batchSize: number,
): AsyncGenerator<LicenseExportRow[]> {
  let afterKey: string | undefined;
  for (;;) {
    const params: unknown[] = [];
    const where = licenseWhere(filter, params);
    if (afterKey !== undefined) {
      params.push(afterKey);
      where.push(`l.key > $${params.length}`);
    }
    params.push(batchSize);
    const result = await db.query(
      `SELECT l.id, l.key, l.product_id AS "productId", p.name AS "productName",
              l.customer_id AS "customerId", c.name AS "customerName", c.email AS "customerEmail",
              l.license_type AS "licenseType", l.active, l.suspended, l.revoked, l.expires_at AS "expiresAt",
              l.ip_limit AS "ipLimit", l.hwid_limit AS "hwidLimit", l.used_ips AS "usedIps", l.used_hwids AS "usedHwids",
              l.credits_total AS "creditsTotal", l.credits_used AS "creditsUsed", l.parent_id AS "parentId",
              l.created_at AS "createdAt"
         FROM licenses l
         JOIN products p ON p.id = l.product_id
         LEFT JOIN customers c ON c.id = l.customer_id
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY l.key
        LIMIT $${params.length}`,
      params,
    );
    const rows = parseRows(licenseExportRow, result.rows);
    if (rows.length) yield rows;
    if (rows.length < batchSize) return;
    afterKey = rows[rows.length - 1]!.key;
  }
}

const transactionExportRow = z.object({
  id: z.string(),
  createdAt: z.date(),
  status: z.string(),
  amount: z.number(),
  currency: z.string(),
  customerId: z.string().nullable(),
  customerName: z.string().nullable(),
  customerEmail: z.string().nullable(),
  licenseId: z.string().nullable(),
  licenseKey: z.string().nullable(),
  productId: z.string().nullable(),
  productName: z.string().nullable(),
  externalId: z.string().nullable(),
});
export type TransactionExportRow = z.infer<typeof transactionExportRow>;

/** Transactions oldest first, keyset on (created_at, id). */
export async function* transactionBatches(
  db: Queryable,
  filter: TransactionExportFilter,
  batchSize: number,
): AsyncGenerator<TransactionExportRow[]> {
  let after: { createdAt: Date; id: string } | undefined;
  for (;;) {
    const params: unknown[] = [];
    const where: string[] = [];
    const add = (sql: string, ...values: unknown[]) => {
      let text = sql;
      for (const value of values) {
        params.push(value);
        text = text.replace('?', `$${params.length}`);
      }
      where.push(text);
    };
    if (filter.customer) add('t.customer_id = ?', filter.customer);
    if (filter.status) add('t.status = ?', filter.status);
    if (filter.startDate) add('t.created_at >= ?', filter.startDate);
    if (filter.endDate) add('t.created_at <= ?', filter.endDate);
    if (after) add('(t.created_at, t.id) > (?, ?)', after.createdAt, after.id);
    params.push(batchSize);
    const result = await db.query(
      `SELECT t.id, t.created_at AS "createdAt", t.status, t.amount, t.currency,
              t.customer_id AS "customerId", c.name AS "customerName", c.email AS "customerEmail",
              t.license_id AS "licenseId", l.key AS "licenseKey", t.product_id AS "productId", p.name AS "productName",
              t.external_id AS "externalId"
         FROM transactions t
         LEFT JOIN customers c ON c.id = t.customer_id
         LEFT JOIN licenses l ON l.id = t.license_id
         LEFT JOIN products p ON p.id = t.product_id
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY t.created_at, t.id
        LIMIT $${params.length}`,
      params,
    );
    const rows = parseRows(transactionExportRow, result.rows);
    if (rows.length) yield rows;
    if (rows.length < batchSize) return;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}
