import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import type { LicenseEventName } from '../src/events/event-bus.js';
import { verifyResponse } from '../src/signing/signing.js';
import { buildTestApp, systemActor, type TestApp } from './helpers.js';

// Machines and floating seats (decisions.md, Wave 3): activation, heartbeat and deactivation like
// validate, usedHwids = the machines' fingerprints, floating seats that lapse, the sweep, the admin
// and customer lists, and exact seats under concurrency on one and on two instances.

let t: TestApp;
let publicKey: string;
const seen: Array<{ event: LicenseEventName; data: Record<string, unknown> }> = [];
beforeAll(async () => {
  t = await buildTestApp();
  publicKey = (await t.http.get('/api/license/public-key')).body.publicKey as string;
  for (const event of ['MACHINE_ACTIVATED', 'MACHINE_DEACTIVATED', 'MACHINE_LEASE_EXPIRED'] as const) {
    t.context.events.on(event, (data) => {
      seen.push({ event, data });
    });
  }
});
afterAll(async () => {
  await t?.close();
});

const post = (app: TestApp, path: string, body: Record<string, unknown>) =>
  app.http.post(`/api/license/machines/${path}`).send(body);
const activate = (body: Record<string, unknown>, app = t) => post(app, 'activate', body);
const heartbeat = (body: Record<string, unknown>, app = t) => post(app, 'heartbeat', body);
const deactivate = (body: Record<string, unknown>, app = t) => post(app, 'deactivate', body);
const validate = (body: Record<string, unknown>) => t.http.post('/api/license/validate').send(body);
const usedHwids = async (id: string) => (await t.context.services.licenses.detail(id)).usedHwids;
/** Moves a license's machines `seconds` into the past (their last sighting and lease), as if time had passed. */
const age = (licenseId: string, seconds: number) =>
  t.database.pool.query(
    `UPDATE machines SET last_seen_at = last_seen_at - make_interval(secs => $2), lease_expires_at = lease_expires_at - make_interval(secs => $2)
   WHERE license_id = $1`,
    [licenseId, seconds],
  );

describe(`machines (${testDatabaseBackend()})`, () => {
  it('activates a machine (201), answers the same machine again with name and platform updated (200), every answer signed', async () => {
    const license = await t.createLicense({ hwidLimit: 2 });
    const first = await activate({ key: license.key, fingerprint: 'fp-1', name: 'Laptop', platform: 'linux' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      success: true,
      machine: { fingerprint: 'fp-1', name: 'Laptop', platform: 'linux', leaseExpiresAt: null },
    });
    expect(verifyResponse(publicKey, first.text, String(first.headers['x-license-signature']))).toBe(true);
    const again = await activate({ key: license.key, fingerprint: 'fp-1', name: 'Work laptop', platform: 'macos' });
    expect(again.status).toBe(200);
    expect(again.body.machine).toMatchObject({ _id: first.body.machine._id, name: 'Work laptop', platform: 'macos' });
    expect(await usedHwids(license._id)).toEqual(['fp-1']);
    expect(
      seen.filter((entry) => entry.event === 'MACHINE_ACTIVATED' && entry.data.licenseId === license._id),
    ).toHaveLength(1);
  });

  it('refuses a machine beyond hwidLimit with 403 HWID limit exceeded; validate with a new hwid takes a seat too', async () => {
    const license = await t.createLicense({ hwidLimit: 2 });
    expect((await validate({ key: license.key, hwid: 'by-validate' })).status).toBe(200);
    expect((await activate({ key: license.key, fingerprint: 'fp-a' })).status).toBe(201);
    const refused = await activate({ key: license.key, fingerprint: 'fp-b' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      success: false,
      error: 'HWID limit exceeded',
      request: { key: license.key, hwid: 'fp-b', entitlements: null, nonce: null },
      issuedAt: expect.any(String),
    });
    expect(verifyResponse(publicKey, refused.text, String(refused.headers['x-license-signature']))).toBe(true);
    expect((await validate({ key: license.key, hwid: 'fp-b' })).body.error).toBe('HWID limit exceeded');
    expect(await usedHwids(license._id)).toEqual(['by-validate', 'fp-a']);
    const admin = await t.admin();
    const list = await t.http.get(`/api/licenses/${license._id}/machines`).set('Cookie', admin.cookie);
    expect(list.status).toBe(200);
    expect(list.body.machines.map((machine: { fingerprint: string }) => machine.fingerprint)).toEqual([
      'by-validate',
      'fp-a',
    ]);
  });

  it("answers validation's failures for unknown, expired, suspended, revoked and inactive keys on all three requests", async () => {
    const expired = await t.createLicense({ expiresAt: new Date(Date.now() - 60_000) });
    const suspended = await t.createLicense({});
    await t.context.services.licenses.suspend(systemActor, suspended._id, 'x');
    const revoked = await t.createLicense({});
    await t.context.services.licenses.revoke(systemActor, revoked._id, 'x');
    const inactive = await t.createLicense({ active: false });
    const cases: Array<[string, number, string]> = [
      ['TEST-unknown', 400, 'License not found'],
      [expired.key, 403, 'License expired'],
      [suspended.key, 403, 'License suspended'],
      [revoked.key, 403, 'License revoked'],
      [inactive.key, 403, 'License not active'],
    ];
    for (const [key, status, error] of cases) {
      for (const send of [activate, heartbeat, deactivate]) {
        const res = await send({ key, fingerprint: 'fp' });
        expect([res.status, res.body]).toEqual([
          status,
          {
            success: false,
            error,
            request: { key, hwid: 'fp', entitlements: null, nonce: null },
            issuedAt: expect.any(String),
          },
        ]);
        expect(res.headers['x-license-signature']).toBeTruthy();
      }
    }
    const invalid = await activate({ key: expired.key, fingerprint: 'x'.repeat(201) });
    expect([invalid.status, invalid.body.error]).toEqual([400, 'Validation failed']);
    expect((await activate({ key: expired.key, fingerprint: 'f', name: 'n'.repeat(101) })).status).toBe(400);
    expect((await activate({ key: expired.key, fingerprint: 'f', platform: 'p'.repeat(51) })).status).toBe(400);
  });

  it("holds validation's hwid to the fingerprint rule (1–200 characters), so a validation cannot make a machine activate refuses", async () => {
    const license = await t.createLicense({ hwidLimit: 2 });
    const tooLong = await validate({ key: license.key, hwid: 'h'.repeat(201) });
    expect([tooLong.status, tooLong.body.error]).toEqual([400, 'Validation failed']);
    const longest = await validate({ key: license.key, hwid: 'h'.repeat(200) });
    expect(longest.status).toBe(200);
    expect((await heartbeat({ key: license.key, fingerprint: 'h'.repeat(200) })).status).toBe(200);
  });

  it('echoes the nonce sent, in the signed body of every answer, so that a recorded answer cannot be replayed', async () => {
    const license = await t.createLicense({ hwidLimit: 1 });
    const answers = [
      await activate({ key: license.key, fingerprint: 'fp-n', nonce: 'n-1' }),
      await heartbeat({ key: license.key, fingerprint: 'fp-n', nonce: 'n-2' }),
      await activate({ key: license.key, fingerprint: 'fp-other', nonce: 'n-3' }),
      await deactivate({ key: license.key, fingerprint: 'fp-n', nonce: 'n-4' }),
    ];
    expect(answers.map((answer) => [answer.status, answer.body.nonce])).toEqual([
      [201, 'n-1'],
      [200, 'n-2'],
      [403, 'n-3'],
      [200, 'n-4'],
    ]);
    for (const answer of answers)
      expect(verifyResponse(publicKey, answer.text, String(answer.headers['x-license-signature']))).toBe(true);
  });

  it('heartbeat refreshes a held seat, deactivate gives it back, and both answer 404 Machine not found without one', async () => {
    const license = await t.createLicense({ hwidLimit: 1 });
    expect((await heartbeat({ key: license.key, fingerprint: 'never' })).body).toEqual({
      success: false,
      error: 'Machine not found',
      request: { key: license.key, hwid: 'never', entitlements: null, nonce: null },
      issuedAt: expect.any(String),
    });
    await activate({ key: license.key, fingerprint: 'fp' });
    const beat = await heartbeat({ key: license.key, fingerprint: 'fp' });
    expect(beat.status).toBe(200);
    expect(beat.body.machine.fingerprint).toBe('fp');
    const gone = await deactivate({ key: license.key, fingerprint: 'fp' });
    // Machine successes name their license (wave 4): its key and product.
    const named = { key: license.key, productId: license.product._id };
    expect([gone.status, gone.body]).toEqual([
      200,
      {
        success: true,
        license: named,
        request: { key: license.key, hwid: 'fp', entitlements: null, nonce: null },
        issuedAt: expect.any(String),
      },
    ]);
    expect(await usedHwids(license._id)).toEqual([]);
    expect((await deactivate({ key: license.key, fingerprint: 'fp' })).status).toBe(404);
    expect((await heartbeat({ key: license.key, fingerprint: 'fp' })).status).toBe(404);
    expect((await activate({ key: license.key, fingerprint: 'other' })).status).toBe(201);
    expect(seen.some((entry) => entry.event === 'MACHINE_DEACTIVATED' && entry.data.licenseId === license._id)).toBe(
      true,
    );
  });

  it('clear removes every machine; rotation keeps them', async () => {
    const license = await t.createLicense({});
    await activate({ key: license.key, fingerprint: 'a' });
    await validate({ key: license.key, hwid: 'b' });
    const { newKey } = await t.context.services.licenses.rotate(systemActor, license.key);
    expect((await heartbeat({ key: newKey, fingerprint: 'a' })).status).toBe(200);
    expect(await usedHwids(license._id)).toEqual(['a', 'b']);
    await t.context.services.licenses.clear(systemActor, newKey);
    expect(await usedHwids(license._id)).toEqual([]);
    expect((await t.database.pool.query('SELECT 1 FROM machines WHERE license_id = $1', [license._id])).rowCount).toBe(
      0,
    );
  });

  it('heartbeatSeconds is whole seconds from 10 to 86,400, or null, in POST and PUT /api/licenses', async () => {
    const admin = await t.admin();
    const product = await t.createProduct();
    for (const bad of [9, 86_401, 10.5, '30']) {
      const res = await t.http
        .post('/api/licenses')
        .set(admin.headers)
        .send({ product: product._id, heartbeatSeconds: bad });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Validation failed');
      expect(res.body.details).toHaveProperty('heartbeatSeconds');
    }
    const made = await t.http
      .post('/api/licenses')
      .set(admin.headers)
      .send({ product: product._id, heartbeatSeconds: 10 });
    expect([made.status, made.body.license.heartbeatSeconds]).toEqual([201, 10]);
    const changed = await t.http
      .put(`/api/licenses/${made.body.license._id}`)
      .set(admin.headers)
      .send({ heartbeatSeconds: null });
    expect(changed.body.license.heartbeatSeconds).toBeNull();
    expect(
      (await t.http.put(`/api/licenses/${made.body.license._id}`).set(admin.headers).send({ heartbeatSeconds: 0 }))
        .status,
    ).toBe(400);
  });

  it('on a floating license a lapsed seat is taken by the next fingerprint at once, and the lapsed one gets 404', async () => {
    const license = await t.createLicense({ hwidLimit: 1, heartbeatSeconds: 10 });
    const first = await activate({ key: license.key, fingerprint: 'old' });
    expect(Date.parse(first.body.machine.leaseExpiresAt) - Date.parse(first.body.machine.lastSeenAt)).toBe(10_000);
    expect((await activate({ key: license.key, fingerprint: 'new' })).status).toBe(403);
    await age(license._id, 11);
    expect((await activate({ key: license.key, fingerprint: 'new' })).status).toBe(201);
    expect(await usedHwids(license._id)).toEqual(['new']);
    expect(
      seen.some(
        (entry) =>
          entry.event === 'MACHINE_LEASE_EXPIRED' &&
          entry.data.licenseId === license._id &&
          entry.data.fingerprint === 'old',
      ),
    ).toBe(true);
    expect((await heartbeat({ key: license.key, fingerprint: 'old' })).body.error).toBe('Machine not found');
    // Validation takes a lapsed seat the same way.
    await age(license._id, 11);
    expect((await validate({ key: license.key, hwid: 'third' })).status).toBe(200);
    expect(await usedHwids(license._id)).toEqual(['third']);
  });

  it('a lapsed seat is given back even when the validation that found it is refused for its credits', async () => {
    const license = await t.createLicense({
      licenseType: 'consumption',
      credits: 1,
      hwidLimit: 1,
      heartbeatSeconds: 10,
    });
    expect((await validate({ key: license.key, hwid: 'first' })).status).toBe(200);
    await age(license._id, 20);
    const refused = await validate({ key: license.key, hwid: 'second' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('No credits remaining');
    expect(await usedHwids(license._id)).toEqual([]);
    const { rows } = await t.database.pool.query('SELECT fingerprint FROM machines WHERE license_id = $1', [
      license._id,
    ]);
    expect(rows).toEqual([]);
  });

  it('a heartbeat renews the lease, so a machine that keeps beating keeps its seat', async () => {
    const license = await t.createLicense({ hwidLimit: 1, heartbeatSeconds: 10 });
    await activate({ key: license.key, fingerprint: 'busy' });
    await age(license._id, 8);
    const beat = await heartbeat({ key: license.key, fingerprint: 'busy' });
    expect(Date.parse(beat.body.machine.leaseExpiresAt)).toBeGreaterThan(Date.now() + 9_000);
    await age(license._id, 8);
    expect((await activate({ key: license.key, fingerprint: 'other' })).status).toBe(403);
  });

  it("validate refreshes a known machine's last sighting and address once a minute, and a floating seat's lease every time", async () => {
    const machineOf = async (licenseId: string) =>
      (
        await t.database.pool.query<{ last_seen_at: Date; last_ip: string | null; lease_expires_at: Date | null }>(
          'SELECT last_seen_at, last_ip, lease_expires_at FROM machines WHERE license_id = $1',
          [licenseId],
        )
      ).rows[0]!;
    const fixed = await t.createLicense({ hwidLimit: 2, ipLimit: 0 });
    expect((await validate({ key: fixed.key, hwid: 'desk', ip: '10.9.0.1' })).status).toBe(200);
    await age(fixed._id, 30);
    const aged = await machineOf(fixed._id);
    expect((await validate({ key: fixed.key, hwid: 'desk', ip: '10.9.0.2' })).status).toBe(200);
    expect(await machineOf(fixed._id)).toEqual(aged);
    await age(fixed._id, 40);
    expect((await validate({ key: fixed.key, hwid: 'desk', ip: '10.9.0.2' })).status).toBe(200);
    const seen = await machineOf(fixed._id);
    expect(Date.now() - seen.last_seen_at.getTime()).toBeLessThan(10_000);
    expect(seen.last_ip).toBe('10.9.0.2');

    const floating = await t.createLicense({ hwidLimit: 1, heartbeatSeconds: 60 });
    expect((await validate({ key: floating.key, hwid: 'lap' })).status).toBe(200);
    await age(floating._id, 20);
    expect((await validate({ key: floating.key, hwid: 'lap' })).status).toBe(200);
    expect((await machineOf(floating._id)).lease_expires_at!.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it('the sweep removes lapsed machines (MACHINE_LEASE_EXPIRED) and leaves the others', async () => {
    const floating = await t.createLicense({ hwidLimit: 3, heartbeatSeconds: 10 });
    const fixed = await t.createLicense({ hwidLimit: 3 });
    await activate({ key: floating.key, fingerprint: 'lapses' });
    await activate({ key: fixed.key, fingerprint: 'stays' });
    await age(floating._id, 11);
    await activate({ key: floating.key, fingerprint: 'fresh' }).expect(201);
    await age(floating._id, 0);
    await t.database.pool.query(
      `UPDATE machines SET lease_expires_at = now() - interval '1 second' WHERE fingerprint = 'fresh'`,
    );
    expect(await t.context.services.machines.sweep()).toBeGreaterThanOrEqual(1);
    expect(await usedHwids(floating._id)).toEqual([]);
    expect(await usedHwids(fixed._id)).toEqual(['stays']);
    expect(seen.some((entry) => entry.event === 'MACHINE_LEASE_EXPIRED' && entry.data.fingerprint === 'fresh')).toBe(
      true,
    );
    expect(await t.context.services.machines.sweep()).toBe(0);
  });

  it("an admin deactivates a machine (audited); a customer lists only their own licenses' machines and releases one by hwid", async () => {
    const { customer, session } = await t.customer();
    const mine = await t.createLicense({ customer: customer._id, hwidLimit: 3 });
    const theirs = await t.createLicense({ hwidLimit: 3 });
    await activate({ key: mine.key, fingerprint: 'desk', name: 'Desk' });
    await activate({ key: mine.key, fingerprint: 'tablet', name: 'Tablet' });
    const machine = (await activate({ key: theirs.key, fingerprint: 'x' })).body.machine as { _id: string };

    const list = await t.http.get(`/api/customer/licenses/${mine._id}/machines`).set('Cookie', session.cookie);
    expect(list.status).toBe(200);
    expect(list.body.machines.map((entry: { name: string }) => entry.name)).toEqual(['Desk', 'Tablet']);
    for (const id of [theirs._id, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const res = await t.http.get(`/api/customer/licenses/${id}/machines`).set('Cookie', session.cookie);
      expect([res.status, res.body.error]).toEqual([404, 'License not found']);
    }
    expect((await t.http.get(`/api/customer/licenses/${mine._id}/machines`)).status).toBe(401);

    const released = await t.http
      .post(`/api/customer/licenses/${mine._id}/release`)
      .set(session.headers)
      .send({ hwid: 'desk' });
    expect(released.status).toBe(200);
    const after = await t.http.get(`/api/customer/licenses/${mine._id}/machines`).set('Cookie', session.cookie);
    expect(after.body.machines.map((entry: { fingerprint: string }) => entry.fingerprint)).toEqual(['tablet']);

    const admin = await t.admin();
    const missing = await t.http.delete(`/api/licenses/${mine._id}/machines/${machine._id}`).set(admin.headers);
    expect([missing.status, missing.body.error]).toEqual([404, 'Machine not found']);
    const removed = await t.http.delete(`/api/licenses/${theirs._id}/machines/${machine._id}`).set(admin.headers);
    expect([removed.status, removed.body]).toEqual([200, { success: true }]);
    expect(await usedHwids(theirs._id)).toEqual([]);
    const audit = await t.http
      .get('/api/audit')
      .query({ resourceId: theirs._id, action: 'delete' })
      .set('Cookie', admin.cookie);
    expect(audit.body.auditLogs[0].changes.before.machine.fingerprint).toBe('x');
    expect(
      seen.some(
        (entry) => entry.event === 'MACHINE_DEACTIVATED' && entry.data.by === 'admin' && entry.data.fingerprint === 'x',
      ),
    ).toBe(true);
  });

  it('the seat functions of a migrated database are exactly the statements of machine-seat.sql', async () => {
    const source = readFileSync(path.resolve(import.meta.dirname, '../src/machines/machine-seat.sql'), 'utf8');
    const bodies = [...source.matchAll(/^CREATE OR REPLACE FUNCTION (\w+)\([\s\S]*?\bAS \$\$([\s\S]*?)\$\$;/gm)];
    expect(bodies.map((match) => match[1])).toEqual([
      'license_machine_seat_v3',
      'license_machine_seat_batch_v1',
      'license_machines_sweep',
    ]);
    for (const [, name, body] of bodies) {
      const { rows } = await t.database.pool.query<{ prosrc: string }>(
        'SELECT prosrc FROM pg_proc WHERE proname = $1',
        [name],
      );
      expect(rows.map((row) => row.prosrc)).toEqual([body]);
    }
    // The previous releases' seat functions stay for their instances during a rolling upgrade.
    const { rows: old } = await t.database.pool.query(
      "SELECT proname FROM pg_proc WHERE proname IN ('license_machine_seat', 'license_machine_seat_v2') ORDER BY 1",
    );
    expect(old.map((row) => row.proname)).toEqual(['license_machine_seat', 'license_machine_seat_v2']);
  });

  it('the three requests are in the API description, like validate', async () => {
    const paths = Object.keys((await t.http.get('/openapi.json')).body.paths as Record<string, unknown>);
    for (const path of [
      '/api/license/machines/activate',
      '/api/license/machines/heartbeat',
      '/api/license/machines/deactivate',
      '/api/licenses/{id}/machines',
      '/api/licenses/{id}/machines/{machineId}',
      '/api/customer/licenses/{licenseId}/machines',
    ]) {
      expect(paths).toContain(path);
    }
  });
});

describe(`machines under concurrency (${testDatabaseBackend()})`, () => {
  const fingerprints = Array.from({ length: 50 }, (_, i) => `fp-${i}`);
  const statuses = (responses: Array<{ status: number }>) => responses.map((res) => res.status).sort();

  it('50 simultaneous activations with 50 fingerprints at hwidLimit 3 give three 201 and forty-seven 403', async () => {
    const license = await t.createLicense({ hwidLimit: 3 });
    const answers = await Promise.all(fingerprints.map((fingerprint) => activate({ key: license.key, fingerprint })));
    expect(statuses(answers)).toEqual([...Array<number>(3).fill(201), ...Array<number>(47).fill(403)]);
    expect(await usedHwids(license._id)).toHaveLength(3);
  });

  it('the same across two instances on one database', async () => {
    const second = await buildTestApp({ database: t.database });
    try {
      const license = await t.createLicense({ hwidLimit: 3 });
      const answers = await Promise.all(
        fingerprints.map((fingerprint, i) => activate({ key: license.key, fingerprint }, i % 2 ? second : t)),
      );
      expect(statuses(answers)).toEqual([...Array<number>(3).fill(201), ...Array<number>(47).fill(403)]);
      expect(await usedHwids(license._id)).toHaveLength(3);
    } finally {
      await second.close();
    }
  });

  it('400 activations and validations of 20 licenses in any order, on two instances, fill each exactly (batches never deadlock)', async () => {
    const second = await buildTestApp({ database: t.database });
    try {
      const licenses = await Promise.all(Array.from({ length: 20 }, () => t.createLicense({ hwidLimit: 2 })));
      // Keys in shuffled order, so batches name licenses in every order; the seat batches and the
      // validation batches lock rows in key order, and none waits on another in a cycle.
      const calls = Array.from({ length: 400 }, (_, i) => ({ license: licenses[(i * 7) % 20]!, i })).sort(
        (a, b) => ((a.i * 37) % 400) - ((b.i * 37) % 400),
      );
      const answers = await Promise.all(
        calls.map(({ license, i }) => {
          const app = i % 2 ? second : t;
          if (i % 3 === 0) return app.http.post('/api/license/validate').send({ key: license.key });
          return activate({ key: license.key, fingerprint: `fp-${i % 9}` }, app);
        }),
      );
      expect(answers.every((res) => [200, 201, 403].includes(res.status))).toBe(true);
      for (const license of licenses) expect(await usedHwids(license._id)).toHaveLength(2);
      // A seat is created once: the later activations of a fingerprint that holds one answer 200.
      expect(answers.filter((res) => res.status === 201)).toHaveLength(40);
    } finally {
      await second.close();
    }
  });

  it('200 simultaneous heartbeats, activations and validations on a floating license never hold more seats than hwidLimit', async () => {
    const second = await buildTestApp({ database: t.database });
    try {
      const license = await t.createLicense({ hwidLimit: 3, heartbeatSeconds: 10 });
      for (const fingerprint of ['h-0', 'h-1', 'h-2']) await activate({ key: license.key, fingerprint });
      await age(license._id, 11);
      const calls = Array.from({ length: 200 }, (_, i) => {
        const app = i % 2 ? second : t;
        if (i % 4 === 0) return heartbeat({ key: license.key, fingerprint: `h-${i % 3}` }, app);
        if (i % 4 === 1) return app.http.post('/api/license/validate').send({ key: license.key, hwid: `v-${i % 7}` });
        return activate({ key: license.key, fingerprint: `a-${i % 11}` }, app);
      });
      const answers = await Promise.all(calls);
      expect(answers.every((res) => [200, 201, 403, 404].includes(res.status))).toBe(true);
      const hwids = await usedHwids(license._id);
      expect(hwids.length).toBeLessThanOrEqual(3);
      const { rows } = await t.database.pool.query<{ fingerprint: string }>(
        'SELECT fingerprint FROM machines WHERE license_id = $1',
        [license._id],
      );
      expect(rows.map((row) => row.fingerprint).sort()).toEqual([...hwids].sort());
      const admitted = answers.filter((res) => res.status === 201).length;
      expect(admitted).toBeLessThanOrEqual(3);
    } finally {
      await second.close();
    }
  });
});
