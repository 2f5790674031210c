import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, type TestApp } from './helpers.js';

/**
 * The database drops the service's connections in the middle of a validation load (a failover,
 * an administrator's pg_terminate_backend). No answer may be a 500: each is a validation answer
 * (retried once where that is safe) or a 503 with Retry-After.
 */
const onServer = testDatabaseBackend() === 'server';
if (!onServer) {
  process.stderr.write(
    'skipped: transient database errors (the embedded database has no connections to terminate; set TEST_DATABASE_URL to run it)\n',
  );
}
let t: TestApp;

beforeAll(async () => {
  if (onServer) t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('transient database errors', () => {
  it.skipIf(!onServer)(
    'answers a validation load during repeated pg_terminate_backend with validation answers or 503 + Retry-After, never 500',
    async () => {
      const fixed = await t.createLicense({ ipLimit: 0, hwidLimit: 0 });
      const consumption = await t.createLicense({ licenseType: 'consumption', credits: 1_000_000 });
      const admin = new pg.Client({ connectionString: t.database.url });
      await admin.connect();
      let terminated = 0;
      let terminations = 0;
      let loadRunning = true;
      const terminator = (async () => {
        // Several rounds while the load runs.
        while (loadRunning) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          const { rows } = await admin.query(
            'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
          );
          terminated += rows[0].n;
          terminations += 1;
        }
      })();

      const statuses = new Map<string, number>();
      const count = (label: string) => statuses.set(label, (statuses.get(label) ?? 0) + 1);
      const total = 600;
      let sent = 0;
      const worker = async () => {
        // At least `total` requests, and on until five rounds of terminations have hit the load.
        while (sent < total || terminations < 5) {
          const index = sent++;
          const license = index % 3 === 0 ? consumption : fixed;
          const res = await t.http
            .post('/api/license/validate')
            .send({ key: license.key, ip: `10.0.${index % 200}.1`, hwid: `hw-${index % 7}` });
          if (res.status === 503) {
            expect(res.headers['retry-after']).toBe('1');
            expect(res.body).toMatchObject({
              success: false,
              valid: false,
              error: 'Service temporarily unavailable, please retry',
            });
            count('503');
          } else {
            expect([200, 400, 403]).toContain(res.status);
            expect(typeof res.body.valid).toBe('boolean');
            count(String(res.status));
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: 40 }, worker));
      } finally {
        loadRunning = false;
        await terminator;
        await admin.end();
      }
      const summary = Object.fromEntries(statuses);
      console.log(
        `validate under pg_terminate_backend: ${sent} requests, ${terminations} rounds terminating ${terminated} connections:`,
        summary,
      );
      expect(terminations).toBeGreaterThanOrEqual(5);
      expect(terminated).toBeGreaterThan(0);
      expect(summary['500']).toBeUndefined();
      expect((summary['200'] ?? 0) + (summary['503'] ?? 0)).toBe(sent);
      // After the storm the service answers normally again.
      const after = await t.http.post('/api/license/validate').send({ key: fixed.key, ip: '10.9.9.9' });
      expect(after.status).toBe(200);
    },
    120_000,
  );
});
