/**
 * What the page benchmarks share (`npm run bench:scale`, `npm run bench:pages`): a dedicated
 * PostgreSQL database that keeps its seed between runs (a marker in the database's comment),
 * bulk loading without the secondary indexes, and timing a page as the median of sequential
 * requests after warm-ups, printed as a table against its target.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A short fingerprint of an app's migrations (its Drizzle journal). It is part of the seed
 * marker: Drizzle applies only migrations newer than the last one applied, so a kept database
 * would miss a migration merged in with an older date; a changed list seeds afresh instead.
 */
export function migrationsFingerprint(migrationsFolder: string): string {
  const journal = readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8');
  return createHash('sha256').update(journal).digest('hex').slice(0, 12);
}

/** What the helpers need of a pg Pool or Client (the apps pass theirs: pg is their dependency). */
export interface Sql {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}
export interface SqlPool extends Sql {
  connect(): Promise<Sql & { release(): void }>;
}

export const serverUrl =
  process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * Makes sure database `name` exists (`admin`: a connection to the server's `postgres` database).
 * Answers whether it already holds the seed `marker` (the database's comment); BENCH_RESEED=1
 * drops and recreates it so the seed runs again.
 */
export async function prepareDatabase(
  admin: Sql,
  name: string,
  marker: string,
): Promise<{ url: string; seeded: boolean }> {
  if (process.env.BENCH_RESEED === '1') await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const { rows } = await admin.query<{ comment: string | null }>(
    `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
    [name],
  );
  if (rows.length === 0) {
    await admin.query(`CREATE DATABASE ${name}`);
    return { url: withDatabase(serverUrl, name), seeded: false };
  }
  if (rows[0]!.comment === marker) return { url: withDatabase(serverUrl, name), seeded: true };
  // A half-made or older seed: start over.
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  return { url: withDatabase(serverUrl, name), seeded: false };
}

/** Records that the seed is complete (the next run skips it). */
export async function markSeeded(pool: Sql, name: string, marker: string): Promise<void> {
  await pool.query(`COMMENT ON DATABASE ${name} IS '${marker.replaceAll("'", "''")}'`);
}

/**
 * Runs `load` with the table's secondary indexes and its foreign keys dropped, then builds the
 * indexes again from their own definitions (one sorted build each is far faster than a million
 * index insertions) and adds the foreign keys back (one validating join instead of a trigger
 * call per row). Indexes that back a constraint (primary key, UNIQUE constraints) stay, and so
 * do triggers.
 */
export async function withoutIndexes(client: Sql, table: string, load: () => Promise<void>): Promise<void> {
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
      WHERE i.indrelid = $1::regclass
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [table],
  );
  const { rows: foreignKeys } = await client.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f'`,
    [table],
  );
  for (const key of foreignKeys) await client.query(`ALTER TABLE ${table} DROP CONSTRAINT "${key.name}"`);
  for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
  await load();
  for (const index of indexes) await client.query(index.definition);
  for (const key of foreignKeys)
    await client.query(`ALTER TABLE ${table} ADD CONSTRAINT "${key.name}" ${key.definition}`);
}

/** A client for bulk statements: no waiting for the WAL flush, more memory for index builds. */
export async function bulkSession<T>(pool: SqlPool, work: (client: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(`SET synchronous_commit = off`);
    await client.query(`SET maintenance_work_mem = '256MB'`);
    await client.query(`SET work_mem = '64MB'`);
    return await work(client);
  } finally {
    client.release();
  }
}

export interface Timing {
  page: string;
  status: number;
  median: number;
  p90: number;
  p95: number;
  target?: number;
  note?: string;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

/**
 * GETs `url` `warmups` times, then `runs` times one after another, reading each body whole.
 * Answers the median, p90 and p95 in ms and the status of the last answer (a page that does not answer
 * 200 is reported, not timed as if it had).
 */
export async function timePage(
  page: string,
  url: string,
  headers: Record<string, string>,
  options: { runs?: number; warmups?: number; target?: number } = {},
): Promise<Timing> {
  const runs = options.runs ?? Number(process.env.BENCH_RUNS ?? 20);
  const warmups = options.warmups ?? 2;
  let status = 0;
  const once = async () => {
    const started = performance.now();
    const response = await fetch(url, { headers, redirect: 'manual' });
    await response.arrayBuffer();
    status = response.status;
    return performance.now() - started;
  };
  let slowest = 0;
  for (let i = 0; i < warmups; i++) slowest = Math.max(slowest, await once());
  // A page twenty times over its target is far off either way: 5 runs say by how much, sooner.
  const far = options.target !== undefined && warmups > 0 && slowest > 20 * options.target;
  const times: number[] = [];
  for (let i = 0; i < (far ? Math.min(runs, 5) : runs); i++) times.push(await once());
  times.sort((a, b) => a - b);
  return {
    page,
    status,
    median: quantile(times, 0.5),
    p90: quantile(times, 0.9),
    p95: quantile(times, 0.95),
    target: options.target,
    ...(far ? { note: `${times.length} runs (over 20× its target)` } : {}),
  };
}

/** A timing meets its target when it answered 200 and its median is within the target. */
export const missed = (timing: Timing) =>
  timing.status !== 200 || (timing.target !== undefined && timing.median > timing.target);

/** Prints the timings as a Markdown table; answers whether every page met its target. */
export function printTable(title: string, timings: Timing[]): boolean {
  const pageWidth = Math.max(4, ...timings.map((timing) => timing.page.length));
  console.log(`\n${title}\n`);
  console.log(`| ${'page'.padEnd(pageWidth)} | status | median ms | p90 ms | p95 ms | target ms | result |`);
  console.log(`|${'-'.repeat(pageWidth + 2)}|--------|-----------|--------|--------|-----------|--------|`);
  for (const timing of timings) {
    const result = missed(timing) ? 'MISSED' : 'ok';
    const target = timing.target === undefined ? 'keep' : `≤ ${timing.target}`;
    console.log(
      `| ${timing.page.padEnd(pageWidth)} | ${String(timing.status).padStart(6)} | ${timing.median.toFixed(1).padStart(9)} | ` +
        `${timing.p90.toFixed(1).padStart(6)} | ${timing.p95.toFixed(1).padStart(6)} | ${target.padStart(9)} | ${result.padEnd(6)} |${timing.note ? ` ${timing.note}` : ''}`,
    );
  }
  return !timings.some(missed);
}

/** Seconds since `started` (a performance.now() value), for the seed report. */
export const secondsSince = (started: number) => ((performance.now() - started) / 1000).toFixed(1);
