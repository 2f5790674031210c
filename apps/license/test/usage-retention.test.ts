import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, type TestApp } from './helpers.js';

// Usage retention (decisions.md, Wave 4, "Usage at scale"): usage records are partitioned by
// month; USAGE_RETENTION_DAYS (default 90) drops the months that ended before the cutoff (and,
// on the embedded database, the older rows of the month that holds it); rollups are kept.

const now = new Date('2026-12-05T12:00:00Z'); // cutoff with 90 days: 2026-09-06T12:00Z
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ now: () => now });
});
afterAll(async () => {
  await t?.close();
});

const partitions = async () =>
  (
    await t.database.pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'usage_records'::regclass ORDER BY 1`,
    )
  ).rows.map((row) => row.name);
const count = async (sql: string, values: unknown[] = []) =>
  (await t.database.pool.query<{ n: number }>(sql, values)).rows[0]!.n;

describe(`usage retention (${testDatabaseBackend()})`, () => {
  it('drops expired months, keeps the rollups and the all-time counters, and makes the coming months', async () => {
    const license = await t.createLicense();
    await t.database.pool.query("SELECT usage_records_ensure_partitions('2026-07-01', '2026-10-01')");
    // Two rows a day at these times: July (a month past the cutoff), early September (before the
    // cutoff, in the month that holds it), October (kept), and a far-off clock in the default partition.
    const at = ['2026-07-10T08:00:00Z', '2026-09-01T08:00:00Z', '2026-10-01T08:00:00Z', '2025-01-15T08:00:00Z'];
    for (const time of at)
      await t.database.pool.query(
        `INSERT INTO usage_records (license_id, ip, status, created_at) SELECT $1, '10.0.0.' || i, 'success', $2
           FROM generate_series(1, 2) AS i`,
        [license._id, time],
      );
    expect(
      await count('SELECT count(*)::int AS n FROM usage_records_default WHERE license_id = $1', [license._id]),
    ).toBe(2);
    const allTime = await count('SELECT sum(records)::int AS n FROM usage_counts');

    const result = await t.context.services.analytics.maintainUsage();
    expect(result.dropped).toBeGreaterThanOrEqual(1);
    const names = await partitions();
    expect(names).not.toContain('usage_records_202607');
    expect(names).toEqual(
      expect.arrayContaining([
        'usage_records_202609',
        'usage_records_202610',
        'usage_records_202612',
        'usage_records_202701',
        'usage_records_202702',
        'usage_records_default',
      ]),
    );

    const left = (
      await t.database.pool.query<{ day: string }>(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM usage_records WHERE license_id = $1 ORDER BY 1`,
        [license._id],
      )
    ).rows.map((row) => row.day);
    // PostgreSQL drops whole months; the embedded database deletes the older rows of September too.
    expect(left).toEqual(
      t.database.mode === 'embedded'
        ? ['2026-10-01', '2026-10-01']
        : ['2026-09-01', '2026-09-01', '2026-10-01', '2026-10-01'],
    );
    // Rollups and the hourly counters keep every attempt.
    expect(await count('SELECT sum(records)::int AS n FROM usage_counts')).toBe(allTime);
    const july = await t.http
      .get(`/api/licenses/${license._id}/analytics?from=2026-07-10&to=2026-07-10`)
      .set((await t.admin()).headers);
    expect(july.body.days).toEqual([{ date: '2026-07-10', ok: 2, refused: {}, machines: 0, addresses: 2 }]);

    // A second run has nothing left to drop.
    expect((await t.context.services.analytics.maintainUsage()).dropped).toBe(0);
  });
});
