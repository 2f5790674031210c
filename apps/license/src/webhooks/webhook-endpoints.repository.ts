import { parseRows, type Queryable, type RowOf, tableRows } from '@app/db';
import { z } from 'zod';
import { webhookEndpoints } from './webhook-endpoints.table.js';

// The `webhook_endpoints` table: where license events are sent, each with its events and sealed secret.

export type EndpointRow = RowOf<typeof webhookEndpoints>;

const columns = 'id, url, events, secret_sealed, enabled, created_at, updated_at';
/** Rows of `columns` (every column of the table), checked. */
const endpointRows = tableRows(webhookEndpoints);
/** Where an enabled endpoint's events go. */
const enabledEndpointRow = z.object({ id: z.string(), url: z.string(), events: z.array(z.string()) });

export async function insertEndpoint(db: Queryable, row: Omit<EndpointRow, 'updated_at'>): Promise<EndpointRow> {
  const { rows } = await db.query(
    `INSERT INTO webhook_endpoints (id, url, events, secret_sealed, enabled, created_at, updated_at)
     VALUES ($1, $2, $3::text[], $4, $5, $6, $6) RETURNING ${columns}`,
    [row.id, row.url, row.events, row.secret_sealed, row.enabled, row.created_at],
  );
  return endpointRows(rows)[0]!;
}

/**
 * The endpoint of the environment (WEBHOOK_URL...), with its fixed id, only while the table is
 * empty: two instances starting at once insert it once (the second hits the primary key), and a
 * restart adds nothing. Answers the row when this call inserted it.
 */
export async function insertSeedEndpoint(
  db: Queryable,
  row: Omit<EndpointRow, 'updated_at'>,
): Promise<EndpointRow | undefined> {
  const { rows } = await db.query(
    `INSERT INTO webhook_endpoints (id, url, events, secret_sealed, enabled, created_at, updated_at)
     SELECT $1, $2, $3::text[], $4, $5, $6, $6 WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints)
     ON CONFLICT DO NOTHING RETURNING ${columns}`,
    [row.id, row.url, row.events, row.secret_sealed, row.enabled, row.created_at],
  );
  return endpointRows(rows)[0];
}

export async function findEndpoint(db: Queryable, id: string): Promise<EndpointRow | undefined> {
  const { rows } = await db.query(`SELECT ${columns} FROM webhook_endpoints WHERE id = $1`, [id]);
  return endpointRows(rows)[0];
}

/** Every endpoint, oldest first (there are few: one per receiving system). */
export async function listEndpoints(db: Queryable): Promise<EndpointRow[]> {
  const { rows } = await db.query(`SELECT ${columns} FROM webhook_endpoints ORDER BY created_at, id`);
  return endpointRows(rows);
}

/** The enabled endpoints, where events go. */
export async function enabledEndpoints(db: Queryable): Promise<Array<Pick<EndpointRow, 'id' | 'url' | 'events'>>> {
  const { rows } = await db.query(
    'SELECT id, url, events FROM webhook_endpoints WHERE enabled ORDER BY created_at, id',
  );
  return parseRows(enabledEndpointRow, rows);
}

export async function updateEndpoint(
  db: Queryable,
  id: string,
  changes: { enabled?: boolean; secret_sealed?: string; updated_at: Date },
): Promise<EndpointRow | undefined> {
  const { rows } = await db.query(
    `UPDATE webhook_endpoints SET enabled = COALESCE($2, enabled), secret_sealed = COALESCE($3, secret_sealed), updated_at = $4
     WHERE id = $1 RETURNING ${columns}`,
    [id, changes.enabled ?? null, changes.secret_sealed ?? null, changes.updated_at],
  );
  return endpointRows(rows)[0];
}

export async function deleteEndpoint(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}
