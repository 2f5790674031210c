import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { migrationsFolder } from './helpers.js';

// Migration 0022_usage_insight.sql on a database that already holds usage records: it rebuilds
// usage_records partitioned by month (every row kept, with its id) and back-fills the daily
// rollups from them, so the analytics of the days before the upgrade are there and exact.

const before = mkdtempSync(path.join(tmpdir(), 'license-migrations-'));
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const licenseId = '5b0c8c3e-0000-4000-8000-000000000057';

beforeAll(async () => {
  cpSync(migrationsFolder, before, { recursive: true });
  rmSync(path.join(before, '0022_usage_insight.sql'));
  const journal = JSON.parse(readFileSync(path.join(before, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ idx: number }>;
  };
  journal.entries = journal.entries.filter((entry) => entry.idx < 22);
  writeFileSync(path.join(before, 'meta/_journal.json'), JSON.stringify(journal));
  database = await createTestDatabase(before);
});
afterAll(async () => {
  await database?.close();
  rmSync(before, { recursive: true, force: true });
});

describe(`migration 0022 over existing usage records (${testDatabaseBackend()})`, () => {
  it('keeps every record in monthly partitions and back-fills the daily rollups exactly', async () => {
    const { pool } = database;
    await pool.query(
      `INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at)
       SELECT CASE WHEN i % 10 = 0 THEN NULL ELSE $1::uuid END, '10.0.0.' || (i % 4), 'hw-' || (i % 3),
              CASE WHEN i % 10 = 0 THEN 'invalid' WHEN i % 5 = 0 THEN 'blocked' ELSE 'success' END,
              CASE WHEN i % 10 = 0 THEN 'License not found' WHEN i % 5 = 0 THEN 'IP limit exceeded' END,
              timestamptz '2026-01-31 20:00:00+00' + make_interval(hours => i)
       FROM generate_series(1, 100) AS i`,
      [licenseId],
    );
    const ids = (await pool.query<{ id: number }>('SELECT id FROM usage_records ORDER BY id')).rows.map((r) => r.id);

    await runMigrations(database.db, migrationsFolder);

    const after = await pool.query<{ id: number; part: string }>(
      'SELECT id, tableoid::regclass::text AS part FROM usage_records ORDER BY id',
    );
    expect(after.rows.map((row) => row.id)).toEqual(ids);
    expect(new Set(after.rows.map((row) => row.part))).toEqual(
      new Set(['usage_records_202601', 'usage_records_202602']),
    );
    // New records continue the ids.
    await pool.query(`INSERT INTO usage_records (license_id, status) VALUES ($1, 'success')`, [licenseId]);
    const { rows: last } = await pool.query<{ id: number }>('SELECT max(id)::int AS id FROM usage_records');
    expect(last[0]!.id).toBeGreaterThan(Math.max(...ids));

    // 2026-01-31 20:00 + 1..100 hours: 3 hours on Jan 31, 24 a day from Feb 1 to Feb 4, 1 on Feb 5.
    const { rows } = await pool.query<{ day: string; outcome: string; n: number }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, outcome, sum(records)::int AS n FROM usage_daily
        WHERE day < '2026-02-06' GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const total = rows.reduce((sum, row) => sum + row.n, 0);
    expect(total).toBe(100);
    const raw = await pool.query<{ day: string; outcome: string; n: number }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, coalesce(reason, '') AS outcome, count(*)::int AS n
         FROM usage_records WHERE created_at < '2026-02-06' GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(rows).toEqual(raw.rows);
    const devices = await pool.query<{ day: string; machines: number; addresses: number }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, machines::int, addresses::int FROM usage_daily_devices
        WHERE license_id = $1 AND day = '2026-02-02'`,
      [licenseId],
    );
    expect(devices.rows).toEqual([{ day: '2026-02-02', machines: 3, addresses: 4 }]);
  });
});
