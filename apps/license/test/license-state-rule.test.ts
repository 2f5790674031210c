import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { migrationsFolder } from './helpers.js';

// license-state.sql is the readable source of the license's state verdict that validation, the
// seat rule and borrowing read. These checks keep the database's functions the same as the file,
// prove that the planner inlines them (validate is the hot path: a call of a SQL function that is
// not inlined would cost it an executor per item), and state the rule as a table.

const source = readFileSync(path.resolve(import.meta.dirname, '../src/licenses/license-state.sql'), 'utf8');
const functions = [...source.matchAll(/^CREATE OR REPLACE FUNCTION (\w+)\([\s\S]*?\bAS \$\$([\s\S]*?)\$\$;/gm)];

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase(migrationsFolder);
});
afterAll(async () => {
  await database?.close();
});

const now = new Date('2026-12-01T12:00:00Z');
const days = (n: number) => new Date(now.getTime() + n * 86_400_000);
const state = {
  revoked: false,
  suspended: false,
  active: true,
  expiresAt: null as Date | null,
  graceDays: 0,
  strategy: 'revoke',
};

async function verdictOf(license: typeof state): Promise<string | null> {
  const { rows } = await database.pool.query<{ verdict: string | null }>(
    'SELECT license_state_verdict($1, $2, $3, $4, $5, $6, $7) AS verdict',
    [license.revoked, license.suspended, license.active, license.expiresAt, license.graceDays, license.strategy, now],
  );
  return rows[0]!.verdict;
}

describe(`the license state verdict in SQL (${testDatabaseBackend()})`, () => {
  it('the functions of a migrated database are exactly the statements of license-state.sql', async () => {
    expect(functions.map((match) => match[1])).toEqual([
      'license_term_end',
      'license_state_verdict',
      'license_master_verdict',
    ]);
    for (const [, name, body] of functions) {
      const { rows } = await database.pool.query<{ prosrc: string }>('SELECT prosrc FROM pg_proc WHERE proname = $1', [
        name,
      ]);
      expect(rows.map((row) => row.prosrc)).toEqual([body]);
    }
  });

  it('the planner inlines them: a plan shows their expressions, not calls', async () => {
    const { rows } = await database.pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (VERBOSE, COSTS OFF)
       SELECT license_state_verdict(l.revoked, l.suspended, l.active, l.expires_at, l.grace_days, l.expiration_strategy, $1),
              license_master_verdict(l.id IS NOT NULL, l.revoked, l.suspended, l.active, l.expires_at, l.grace_days,
                l.expiration_strategy, $1),
              license_term_end(l.expires_at, l.grace_days)
       FROM licenses l`,
      [now],
    );
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).toContain("'License expired'");
    expect(plan).toContain('make_interval');
    expect(plan).not.toMatch(/license_(state_verdict|master_verdict|term_end)/);
  });

  it.each([
    { name: 'a license in its term works', license: {}, verdict: null },
    { name: 'a license without expiry works', license: { expiresAt: null }, verdict: null },
    {
      name: 'revoked comes before suspended and inactive',
      license: { revoked: true, suspended: true, active: false },
      verdict: 'License revoked',
    },
    {
      name: 'suspended comes before inactive',
      license: { suspended: true, active: false },
      verdict: 'License suspended',
    },
    {
      name: 'inactive comes before expired',
      license: { active: false, expiresAt: days(-1) },
      verdict: 'License not active',
    },
    { name: 'expired at its expiry without grace', license: { expiresAt: now }, verdict: 'License expired' },
    { name: 'works in its grace days', license: { expiresAt: days(-2), graceDays: 3 }, verdict: null },
    {
      name: 'expired when its grace days end',
      license: { expiresAt: days(-3), graceDays: 3 },
      verdict: 'License expired',
    },
    { name: 'maintain outlives its term', license: { expiresAt: days(-30), strategy: 'maintain' }, verdict: null },
  ])('$name', async ({ license, verdict }) => {
    expect(await verdictOf({ ...state, expiresAt: days(30), ...license })).toBe(verdict);
  });

  it('a master answers for its child: missing or inactive first, then its own verdict', async () => {
    const master = async (found: boolean, license: Partial<typeof state>) => {
      const m = { ...state, expiresAt: days(30), ...license };
      const { rows } = await database.pool.query<{ verdict: string | null }>(
        'SELECT license_master_verdict($1, $2, $3, $4, $5, $6, $7, $8) AS verdict',
        [found, m.revoked, m.suspended, m.active, m.expiresAt, m.graceDays, m.strategy, now],
      );
      return rows[0]!.verdict;
    };
    expect(await master(false, {})).toBe('License not active');
    expect(await master(true, { revoked: true, active: false })).toBe('License not active');
    expect(await master(true, { revoked: true })).toBe('License revoked');
    expect(await master(true, { expiresAt: days(-1) })).toBe('License expired');
    expect(await master(true, {})).toBeNull();
  });
});
