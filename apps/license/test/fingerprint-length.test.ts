import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { FINGERPRINT_MAX_LENGTH as clientMaxLength } from '../../../packages/license-client/src/index.js';
import { FINGERPRINT_MAX_LENGTH, fingerprintTooLong } from '../src/common/fingerprint.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// One fingerprint (hwid) length everywhere: each entry point takes FINGERPRINT_MAX_LENGTH
// characters and refuses one more with the same text.

describe(`one fingerprint length everywhere (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  let customer: Session;
  let license: { _id: string; key: string };
  const longest = 'f'.repeat(FINGERPRINT_MAX_LENGTH);
  const tooLong = 'f'.repeat(FINGERPRINT_MAX_LENGTH + 1);

  beforeAll(async () => {
    t = await buildTestApp();
    admin = await t.admin();
    const made = await t.customer();
    customer = made.session;
    license = await t.createLicense({ customer: made.customer._id, hwidLimit: 5 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the client package names the same length as the service', () => {
    expect(FINGERPRINT_MAX_LENGTH).toBe(200);
    expect(clientMaxLength).toBe(FINGERPRINT_MAX_LENGTH);
  });

  const entryPoints: Array<{
    name: string;
    field: string;
    send: (fingerprint: string) => Promise<{ status: number; body: Record<string, unknown> }>;
  }> = [
    {
      name: 'POST /api/license/validate (hwid)',
      field: 'hwid',
      send: (hwid) => t.http.post('/api/license/validate').send({ key: license.key, hwid }),
    },
    {
      name: 'POST /api/license/machines/activate (fingerprint)',
      field: 'fingerprint',
      send: (fingerprint) => t.http.post('/api/license/machines/activate').send({ key: license.key, fingerprint }),
    },
    {
      name: 'POST /api/license/machines/heartbeat (fingerprint)',
      field: 'fingerprint',
      send: (fingerprint) => t.http.post('/api/license/machines/heartbeat').send({ key: license.key, fingerprint }),
    },
    {
      name: 'POST /api/license/machines/deactivate (fingerprint)',
      field: 'fingerprint',
      send: (fingerprint) => t.http.post('/api/license/machines/deactivate').send({ key: license.key, fingerprint }),
    },
    {
      name: 'GET /api/licenses/:id/file?fingerprint=',
      field: 'fingerprint',
      send: (fingerprint) =>
        t.http.get(`/api/licenses/${license._id}/file`).query({ fingerprint }).set('Cookie', admin.cookie),
    },
    {
      name: 'GET /api/customer/licenses/:id/file?fingerprint=',
      field: 'fingerprint',
      send: (fingerprint) =>
        t.http.get(`/api/customer/licenses/${license._id}/file`).query({ fingerprint }).set('Cookie', customer.cookie),
    },
    {
      name: 'POST /api/customer/licenses/:id/release (hwid)',
      field: 'hwid',
      send: (hwid) => t.http.post(`/api/customer/licenses/${license._id}/release`).set(customer.headers).send({ hwid }),
    },
  ];

  it.each(entryPoints)('$name refuses one character over the limit with the same text', async ({ send, field }) => {
    const refused = await send(tooLong);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, error: 'Validation failed' });
    expect((refused.body.details as Record<string, unknown>)[field]).toBe(fingerprintTooLong);
  });

  it.each(entryPoints)('$name takes a fingerprint of exactly the limit', async ({ send }) => {
    const answer = await send(longest);
    // Accepted by validation: whatever the route answers next, it is not the length refusal.
    expect(JSON.stringify(answer.body)).not.toContain(fingerprintTooLong);
  });
});
