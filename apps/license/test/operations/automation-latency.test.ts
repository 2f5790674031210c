import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { createJobQueue, type JobQueue } from '@app/events';
import { createLogger } from '@app/http';
import { buildTestApp, migrationsFolder, type TestApp } from '../helpers.js';
import { sleep } from './peers.js';

// The job queue as `npm start` makes it (main.ts): no polling override, so idle workers look
// for jobs every 2 s; automated actions must still run within a second of their event.
let database: Database;
let queue: JobQueue;
let t: TestApp;

beforeAll(async () => {
  database = await createTestDatabase(migrationsFolder);
  queue = await createJobQueue({
    pool: database.pool,
    logger: createLogger({ level: 'silent' }),
    schema: 'pgboss_license',
  });
  t = await buildTestApp({ env: {}, jobs: queue, database });
});
afterAll(async () => {
  await t?.close();
  await queue?.stop();
  await database?.close();
});

describe(`automated actions run within a second of their event (${testDatabaseBackend()})`, () => {
  it('suspends each new license under 1,000 ms after it was created (5 licenses, one at a time)', async () => {
    const product = await t.createProduct({ licensePrefix: 'FAST' });
    const admin = await t.admin();
    const created = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send({
        name: 'Hold new licenses',
        description: 'Suspends every new license of the product',
        enabled: true,
        trigger: { event: 'license_created', conditions: { productId: product._id } },
        actions: [{ type: 'suspend_license', params: { reason: 'Held for review' } }],
      });
    expect(created.status).toBe(201);

    const latencies: number[] = [];
    for (let n = 0; n < 5; n++) {
      // Idle first, so the event meets a worker waiting out its polling interval.
      await sleep(400);
      const startedAt = Date.now();
      const answer = await t.http
        .post('/api/licenses')
        .set(admin.headers)
        .send({ product: product._id, licenseType: 'fixed' });
      expect(answer.status).toBe(201);
      const id = answer.body.license._id as string;
      for (;;) {
        const { rows } = await database.pool.query<{ suspended: boolean; suspend_reason: string | null }>(
          'SELECT suspended, suspend_reason FROM licenses WHERE id = $1',
          [id],
        );
        if (rows[0]!.suspended) {
          expect(rows[0]!.suspend_reason).toBe('Held for review');
          break;
        }
        if (Date.now() - startedAt > 5_000) throw new Error(`license ${id} was not suspended within 5 s`);
        await sleep(10);
      }
      latencies.push(Date.now() - startedAt);
    }
    expect(
      Math.max(...latencies),
      `from the create request to the suspension: ${latencies.join(', ')} ms`,
    ).toBeLessThan(1_000);
  });
});
