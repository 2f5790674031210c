import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { Queryable } from '@app/db';
import { testDatabaseBackend } from '@app/db/testing';
import { createValidationRepository, type ValidationRequest } from '../src/validation/validation.repository.js';
import { buildTestApp, systemActor, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A repository on the test database that notes how many items each database call carried. */
function repository(options: { maxBatch?: number } = {}) {
  const batchSizes: number[] = [];
  const pool = t.database.pool;
  const db = {
    query: (config: pg.QueryConfig<unknown[][]>) => {
      batchSizes.push(config.values![0]!.length);
      return pool.query(config);
    },
  } as Queryable;
  return { batchSizes, ...createValidationRepository({ db, now: () => new Date(), ...options }) };
}

/** Starts every request in the same turn of the event loop, so they share a batch. */
const together = (repo: ReturnType<typeof repository>, requests: ValidationRequest[]) =>
  Promise.all(requests.map((request) => repo.validateAndRecord(request)));

const outcome = (row: { error: string | null } | undefined) => (row ? (row.error ?? 'success') : 'not found');

async function usage(licenseId: string) {
  const { rows } = await t.database.pool.query<{
    ip: string;
    hwid: string | null;
    status: string;
    reason: string | null;
  }>('SELECT ip, hwid, status, reason FROM usage_records WHERE license_id = $1 ORDER BY id', [licenseId]);
  return rows;
}

describe(`batched validation (${testDatabaseBackend()})`, () => {
  it('decides the items of one batch in arrival order, each seeing the IPs the earlier ones added', async () => {
    const license = await t.createLicense({ ipLimit: 2 });
    const repo = repository();
    const ips = ['10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.1', '10.1.0.3', '10.1.0.2'];
    const rows = await together(
      repo,
      ips.map((ip) => ({ key: license.key, ip, hwid: null })),
    );
    expect(repo.batchSizes).toEqual([6]);
    expect(rows.map(outcome)).toEqual([
      'success',
      'success',
      'IP limit exceeded',
      'success',
      'IP limit exceeded',
      'success',
    ]);
    expect(rows[5]!.used_ips).toEqual(['10.1.0.1', '10.1.0.2']);
    expect((await usage(license._id)).map((row) => [row.ip, row.status])).toEqual([
      ['10.1.0.1', 'success'],
      ['10.1.0.2', 'success'],
      ['10.1.0.3', 'blocked'],
      ['10.1.0.1', 'success'],
      ['10.1.0.3', 'blocked'],
      ['10.1.0.2', 'success'],
    ]);
  });

  it('uses credits one by one within a batch; a blocked item uses none', async () => {
    const license = await t.createLicense({ licenseType: 'consumption', credits: 3, hwidLimit: 1 });
    const repo = repository();
    const hwids = ['hw-1', 'hw-2', 'hw-1', 'hw-1', 'hw-1', 'hw-2'];
    const rows = await together(
      repo,
      hwids.map((hwid) => ({ key: license.key, ip: '10.2.0.1', hwid })),
    );
    expect(repo.batchSizes).toEqual([6]);
    expect(rows.map(outcome)).toEqual([
      'success',
      'HWID limit exceeded',
      'success',
      'success',
      'No credits remaining',
      'No credits remaining',
    ]);
    expect(rows.map((row) => row!.credits_used)).toEqual([1, 1, 2, 3, 3, 3]);
    expect(rows[1]!.violation_count).toBe(1);
    const detail = await t.context.services.licenses.detail(license._id);
    expect(detail.credits).toEqual({ total: 3, used: 3, remaining: 0 });
    expect((await usage(license._id)).map((row) => row.status)).toEqual([
      'success',
      'blocked',
      'success',
      'success',
      'invalid',
      'invalid',
    ]);
  });

  it('writes what a batch changed on a license: its lists, credits, refusals and last validation, also when its last item was refused', async () => {
    const license = await t.createLicense({ licenseType: 'consumption', credits: 5, ipLimit: 1 });
    const repo = repository();
    const started = Date.now();
    const rows = await together(repo, [
      { key: license.key, ip: '10.9.1.1', hwid: null },
      { key: license.key, ip: '10.9.1.1', hwid: null },
      { key: license.key, ip: '10.9.1.2', hwid: null },
    ]);
    expect(rows.map(outcome)).toEqual(['success', 'success', 'IP limit exceeded']);
    expect(rows[2]!.violation_count).toBe(1);
    const detail = await t.context.services.licenses.detail(license._id);
    expect(detail).toMatchObject({ usedIps: ['10.9.1.1'], credits: { used: 2, remaining: 3 }, violationCount: 1 });
    expect(Date.parse(detail.lastValidatedAt!)).toBeGreaterThanOrEqual(started - 1_000);
  });

  it('answers unknown keys, several licenses and every failure in one batch, and records each attempt once', async () => {
    const valid = await t.createLicense();
    const suspended = await t.createLicense();
    await t.context.services.licenses.suspend(systemActor, suspended._id, 'late payment');
    const master = await t.createLicense();
    await t.context.services.licenses.revoke(systemActor, master._id, 'fraud');
    const child = await t.createLicense({ parent: master._id });
    const repo = repository();
    const rows = await together(repo, [
      { key: 'NOPE-unknown', ip: '10.3.0.1', hwid: null },
      { key: valid.key, ip: '10.3.0.1', hwid: 'h' },
      { key: suspended.key, ip: '10.3.0.1', hwid: null },
      { key: child.key, ip: '10.3.0.1', hwid: null },
      { key: valid.key.toLowerCase(), ip: '10.3.0.1', hwid: null },
    ]);
    expect(repo.batchSizes).toEqual([5]);
    expect(rows.map(outcome)).toEqual(['not found', 'success', 'License suspended', 'License revoked', 'not found']);
    const { rows: unknown } = await t.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM usage_records WHERE license_id IS NULL AND ip = '10.3.0.1' AND reason = 'License not found'`,
    );
    expect(unknown[0]!.n).toBe(2);
    expect(await usage(valid._id)).toEqual([{ ip: '10.3.0.1', hwid: 'h', status: 'success', reason: null }]);
    expect(await usage(child._id)).toEqual([
      { ip: '10.3.0.1', hwid: null, status: 'invalid', reason: 'License revoked' },
    ]);
  });

  it('keeps limits exact across many small batches of two instances at once', async () => {
    const limited = await t.createLicense({ ipLimit: 5 });
    const metered = await t.createLicense({ licenseType: 'consumption', credits: 40 });
    const [first, second] = [repository({ maxBatch: 7 }), repository({ maxBatch: 7 })];
    const requests = Array.from({ length: 120 }, (_, i) =>
      i % 2 === 0
        ? { key: limited.key, ip: `10.4.${i >> 8}.${i & 255}`, hwid: null }
        : { key: metered.key, ip: '10.4.9.9', hwid: null },
    );
    const rows = await Promise.all(
      requests.map((request, i) => (i % 4 < 2 ? first : second).validateAndRecord(request)),
    );
    expect(first.batchSizes.length + second.batchSizes.length).toBeGreaterThan(10);
    const successes = (key: string) => rows.filter((row) => row!.key === key && row!.error === null).length;
    expect(successes(limited.key)).toBe(5);
    expect(successes(metered.key)).toBe(40);
    expect((await t.context.services.licenses.detail(limited._id)).usedIps).toHaveLength(5);
    expect((await t.context.services.licenses.detail(metered._id)).credits).toEqual({
      total: 40,
      used: 40,
      remaining: 0,
    });
    expect(await usage(limited._id)).toHaveLength(60);
    expect(await usage(metered._id)).toHaveLength(60);
  });

  it('retires a rotated key at once, also for an item that has to lock the row', async () => {
    const license = await t.createLicense({ ipLimit: 3 });
    const repo = repository();
    expect(outcome(await repo.validateAndRecord({ key: license.key, ip: '10.5.0.1', hwid: null }))).toBe('success');
    const rotated = await t.context.services.licenses.rotate(systemActor, license.key);
    const rows = await together(repo, [
      { key: license.key, ip: '10.5.0.1', hwid: null },
      { key: license.key, ip: '10.5.0.2', hwid: null },
      { key: rotated.newKey, ip: '10.5.0.2', hwid: null },
    ]);
    expect(rows.map(outcome)).toEqual(['not found', 'not found', 'success']);
  });

  it('when the database refuses one item, the batch is rolled back and run again item by item: only that one fails, none counts twice', async () => {
    const license = await t.createLicense({ licenseType: 'consumption', credits: 10 });
    const repo = repository();
    // PostgreSQL text cannot hold a NUL character, so the whole batch statement fails.
    const results = await Promise.allSettled([
      repo.validateAndRecord({ key: license.key, ip: '10.6.0.1', hwid: null }),
      repo.validateAndRecord({ key: license.key, ip: '10.6.0.1', hwid: 'bad\u0000hwid' }),
      repo.validateAndRecord({ key: license.key, ip: '10.6.0.1', hwid: null }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(repo.batchSizes).toEqual([3, 1, 1, 1]);
    expect((await t.context.services.licenses.detail(license._id)).credits).toEqual({
      total: 10,
      used: 2,
      remaining: 8,
    });
    expect(await usage(license._id)).toHaveLength(2);
  });
});
