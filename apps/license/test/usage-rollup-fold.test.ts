import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { dailyRollups, foldUsageRollups, topLicenses, topLicensesOfWindow } from '../src/usage/usage.service.js';
import { migrationsFolder } from './helpers.js';

// Migration 0025_usage_rollup_queue.sql (docs/insight.md): validations queue their records, and
// folds move them into the rollups exactly once, whoever folds and whenever; the dashboard's top
// licenses are kept for the last 30 days as the days move on.

const before = mkdtempSync(path.join(tmpdir(), 'license-migrations-'));
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const DAY = 86_400_000;
const licenseIds = Array.from(
  { length: 6 },
  (_, i) => `5b0c8c3e-0000-4000-8000-0000000024${String(i).padStart(2, '0')}`,
);
const productId = '5b0c8c3e-0000-4000-8000-000000002499';
const dateOf = (at: number) => new Date(at).toISOString().slice(0, 10);

const insertRecords = (count: number, at: string, offset = 0): Promise<unknown> =>
  // A record per i: a license by i² mod 6 (every 7th unknown), refused every 5th, an address of 3 and a machine of 2.
  database.pool.query(
    `INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at)
     SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE ($1::uuid[])[1 + (i * i) % 6] END, '10.24.0.' || (i % 3), 'hw-' || (i % 2),
            CASE WHEN i % 5 = 0 THEN 'blocked' ELSE 'success' END, CASE WHEN i % 5 = 0 THEN 'IP limit exceeded' END,
            $2::timestamptz
       FROM generate_series($3::int + 1, $3::int + $4::int) AS i`,
    [licenseIds, at, offset, count],
  );

beforeAll(async () => {
  // The database as the previous release left it: rollups written by 0022's trigger.
  cpSync(migrationsFolder, before, { recursive: true });
  rmSync(path.join(before, '0025_usage_rollup_queue.sql'));
  const journal = JSON.parse(readFileSync(path.join(before, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ idx: number }>;
  };
  journal.entries = journal.entries.filter((entry) => entry.idx < 25);
  writeFileSync(path.join(before, 'meta/_journal.json'), JSON.stringify(journal));
  database = await createTestDatabase(before);
  await database.pool.query(
    `INSERT INTO products (id, name, description, is_active, license_prefix) VALUES ($1, 'P24', 'd', true, 'P24')`,
    [productId],
  );
  await database.pool.query(
    `INSERT INTO licenses (id, key, product_id) SELECT id, 'K24-' || id, $2 FROM unnest($1::uuid[]) AS id`,
    [licenseIds, productId],
  );
});
afterAll(async () => {
  await database?.close();
  rmSync(before, { recursive: true, force: true });
});

describe(`usage rollups folded from the queue (${testDatabaseBackend()})`, () => {
  it('keeps the rollups of the previous release, then counts queued records once, however folds overlap', async () => {
    const now = Date.now();
    const today = dateOf(now);
    await insertRecords(70, new Date(now).toISOString());
    await runMigrations(database.db, migrationsFolder);

    // Queued, not yet folded: the rollups hold what the old trigger counted.
    await insertRecords(140, new Date(now).toISOString(), 70);
    const [early] = await dailyRollups(database.pool, { productId }, { from: today, to: today });
    expect(early!.ok + early!.refused['IP limit exceeded']!).toBe(60);

    // Folds that wait, folds that skip when another folds, and more records queued meanwhile.
    await Promise.all([
      foldUsageRollups(database.pool, new Date(now), true),
      foldUsageRollups(database.pool, new Date(now), false),
      insertRecords(70, new Date(now).toISOString(), 210),
      foldUsageRollups(database.pool, new Date(now), true),
    ]);
    await foldUsageRollups(database.pool, new Date(now), true);
    expect(await foldUsageRollups(database.pool, new Date(now), true)).toBe(0);

    const { rows } = await database.pool.query<{
      license_id: string | null;
      ok: number;
      refused: number;
      machines: number;
      addresses: number;
    }>(
      `SELECT license_id, count(*) FILTER (WHERE reason IS NULL)::int AS ok, count(*) FILTER (WHERE reason IS NOT NULL)::int AS refused,
              count(DISTINCT hwid)::int AS machines, count(DISTINCT ip)::int AS addresses
         FROM usage_records GROUP BY license_id`,
    );
    const known = rows.filter((row) => row.license_id !== null);
    const [day] = await dailyRollups(database.pool, { productId }, { from: today, to: today });
    expect(day).toEqual({
      date: today,
      ok: known.reduce((sum, row) => sum + row.ok, 0),
      refused: { 'IP limit exceeded': known.reduce((sum, row) => sum + row.refused, 0) },
      machines: known.reduce((sum, row) => sum + row.machines, 0),
      addresses: known.reduce((sum, row) => sum + row.addresses, 0),
    });
    for (const row of known) {
      const [ofLicense] = await dailyRollups(database.pool, { licenseId: row.license_id! }, { from: today, to: today });
      expect(ofLicense!.ok).toBe(row.ok);
      expect(ofLicense!.refused['IP limit exceeded'] ?? 0).toBe(row.refused);
      expect([ofLicense!.machines, ofLicense!.addresses]).toEqual([row.machines, row.addresses]);
    }
    // The top licenses kept by the fold are the ranking of the rollups.
    const window = { from: dateOf(now - 29 * DAY), to: today };
    expect(await topLicensesOfWindow(database.pool, {}, today, 10)).toEqual(
      await topLicenses(database.pool, {}, window, 10),
    );
    expect(await topLicensesOfWindow(database.pool, { productId }, today, 3)).toEqual(
      await topLicenses(database.pool, { productId }, window, 3),
    );
  });

  it('moves the top licenses window day by day, and across gaps, exactly as ranking the rollups would', async () => {
    // Records on days around a clock that moves on by 1, 3, 29, 30 and 45 days.
    const start = Date.parse('2031-03-01T12:00:00Z');
    let offset = 1_000;
    const steps = [0, 1, 1, 3, 29, 1, 30, 45, 2];
    let at = start;
    for (const step of steps) {
      at += step * DAY;
      // Today's, a late one of 10 days ago, one 40 days back (outside the window) and tomorrow's.
      for (const back of [0, 10, 40, -1]) {
        await insertRecords(12 + (offset % 5), new Date(at - back * DAY).toISOString(), offset);
        offset += 17;
      }
      await foldUsageRollups(database.pool, new Date(at), true);
      const to = dateOf(at);
      const kept = await topLicensesOfWindow(database.pool, {}, to, 10);
      expect(kept).toEqual(await topLicenses(database.pool, {}, { from: dateOf(at - 29 * DAY), to }, 10));
      expect(kept!.length).toBeGreaterThan(0);
      // Another day's window is not the kept one: the caller ranks the rollups.
      expect(await topLicensesOfWindow(database.pool, {}, dateOf(at - DAY), 10)).toBeUndefined();
    }
  });

  it('back-fills records loaded without the queue exactly as the fold counts them', async () => {
    const day = '2032-06-10';
    await database.pool.query('ALTER TABLE usage_records DISABLE TRIGGER usage_rollup_enqueued');
    await insertRecords(90, `${day}T08:00:00Z`, 5_000);
    await database.pool.query('ALTER TABLE usage_records ENABLE TRIGGER usage_rollup_enqueued');
    await insertRecords(30, `${day}T09:00:00Z`, 5_090);
    expect(await foldUsageRollups(database.pool, new Date(`${day}T12:00:00Z`), true)).toBe(30);
    const { rows } = await database.pool.query<{ n: number }>(
      `SELECT usage_rollups_backfill_v1($1::timestamptz, $2::timestamptz)::int AS n`,
      [`${day}T08:00:00Z`, `${day}T08:00:01Z`],
    );
    expect(rows[0]!.n).toBe(90);
    const { rows: raw } = await database.pool.query<{
      ok: number;
      refused: number;
      machines: number;
      addresses: number;
    }>(
      `SELECT count(*) FILTER (WHERE reason IS NULL)::int AS ok, count(*) FILTER (WHERE reason IS NOT NULL)::int AS refused,
              count(DISTINCT hwid)::int AS machines, count(DISTINCT ip)::int AS addresses
         FROM usage_records WHERE license_id = $1 AND created_at >= $2::date AND created_at < $2::date + 1`,
      [licenseIds[1], day],
    );
    const [ofLicense] = await dailyRollups(database.pool, { licenseId: licenseIds[1]! }, { from: day, to: day });
    expect(ofLicense).toEqual({
      date: day,
      ok: raw[0]!.ok,
      refused: { 'IP limit exceeded': raw[0]!.refused },
      machines: raw[0]!.machines,
      addresses: raw[0]!.addresses,
    });
  });
});
