import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { testDatabaseBackend } from '@app/db/testing';
import { createValidationRepository } from '../src/validation/validation.repository.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

/**
 * license_validate_batch reads every item's license once, at the start of the batch; an item
 * that needs the row lock reads the row again once it holds it. These are the changes an
 * administrator commits while that item waits for the lock: the batch must answer by the row as
 * locked, for that item and for the items of the same key after it.
 */
const onServer = testDatabaseBackend() === 'server';
if (!onServer) {
  process.stderr.write(
    'skipped: a license changed while a validation waits for its row lock (the embedded database has one connection; set TEST_DATABASE_URL to run it)\n',
  );
}

let t: TestApp;
let admin: Session;
beforeAll(async () => {
  if (!onServer) return;
  t = await buildTestApp();
  admin = await t.admin();
});
afterAll(async () => {
  await t?.close();
});

const post = (path: string, body: object) => t.http.post(path).set(admin.headers).send(body);
const repository = () => createValidationRepository({ db: t.database.pool, now: () => new Date() });

/**
 * Runs `change` in a transaction of its own connection, starts the validations while that
 * transaction holds the license's row, commits once the batch waits for the lock, and answers
 * the batch's rows.
 */
async function validateWhileChanged(
  licenseId: string,
  change: (client: pg.Client) => Promise<unknown>,
  items: Array<{ key: string; ip: string }>,
) {
  const validations = repository();
  const holder = new pg.Client({ connectionString: t.database.url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await change(holder);
    const answers = Promise.all(items.map((item) => validations.validateAndRecord({ ...item, hwid: null })));
    for (let waited = 0; ; waited += 20) {
      const { rows } = await holder.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%license_validate_batch%'`,
      );
      if (rows[0]!.waiting > 0) break;
      if (waited > 5_000) throw new Error(`the validation of ${licenseId} never waited for the row lock`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await holder.query('COMMIT');
    return await answers;
  } finally {
    await holder.end();
  }
}

const outcome = (row: { error: string | null } | undefined) => (row ? (row.error ?? 'success') : 'not found');

describe(`a license changed while a validation waits for its row lock (${testDatabaseBackend()})`, () => {
  it.skipIf(!onServer)(
    'a key rotated meanwhile is not found, for the waiting item and the known IP after it',
    async () => {
      const license = await t.createLicense({ ipLimit: 3 });
      expect(outcome(await repository().validateAndRecord({ key: license.key, ip: '10.7.0.1', hwid: null }))).toBe(
        'success',
      );
      const rows = await validateWhileChanged(
        license._id,
        (client) => client.query(`UPDATE licenses SET key = key || '-ROTATED' WHERE id = $1`, [license._id]),
        // The new IP has to lock the row; the known one after it would not.
        [
          { key: license.key, ip: '10.7.0.2' },
          { key: license.key, ip: '10.7.0.1' },
        ],
      );
      expect(rows.map(outcome)).toEqual(['not found', 'not found']);
      const { rows: kept } = await t.database.pool.query<{ used_ips: string[] }>(
        'SELECT used_ips FROM licenses WHERE id = $1',
        [license._id],
      );
      expect(kept[0]!.used_ips).toEqual(['10.7.0.1']);
    },
  );

  it.skipIf(!onServer)(
    'a policy given meanwhile grants its entitlements to the waiting item and the one after it',
    async () => {
      const code = `RACE_${process.pid}`;
      expect((await post('/api/entitlements', { code, name: 'Granted meanwhile' })).status).toBe(201);
      const product = await t.createProduct();
      const created = await post('/api/policies', { name: 'Race', productId: product._id, entitlements: [code] });
      expect(created.status).toBe(201);
      const policyId = (created.body.policy as { _id: string })._id;
      const license = await t.createLicense({ ipLimit: 0, product: product._id });
      expect(await repository().validateAndRecord({ key: license.key, ip: '10.8.0.1', hwid: null })).toMatchObject({
        entitlements: [],
        policy_id: null,
      });
      const rows = await validateWhileChanged(
        license._id,
        (client) => client.query('UPDATE licenses SET policy_id = $1 WHERE id = $2', [policyId, license._id]),
        [
          { key: license.key, ip: '10.8.0.2' },
          { key: license.key, ip: '10.8.0.1' },
        ],
      );
      for (const row of rows) {
        expect(row).toMatchObject({ error: null, entitlements: [code], policy_id: policyId, policy_name: 'Race' });
      }
    },
  );
});
