import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { runMigrations, type Database } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { createSettingsStore } from '@app/settings';
import { documentOf } from '@app/ui/testing/dom';
import { createApp } from '../src/app.js';
import { createLicenseLogger } from '../src/common/logger.js';
import { createSecretBox } from '../src/two-factor/two-factor.crypto.js';
import { licenseSettingsNamespace, licenseSettingsSchema } from '../src/runtime-config/runtime-config.schema.js';
import { settingsTableName } from '../src/runtime-config/settings.table.js';
import { kidOf, verifyResponse } from '../src/signing/signing.js';
import { buildTestApp, migrationsFolder, type Session, type TestApp } from './helpers.js';

// Wave 4, "Signing keys are sealed and rotate": the private key is sealed at rest, every signed
// answer names its key (X-License-Key-Id), offline files carry `kid`, the public key answer lists
// every key, and an admin rotates the key (API and console), every instance following promptly.

const SESSION_SECRET = 'a-session-secret-for-the-signing-key-tests-0123456789';
const env = { SESSION_SECRET };
const box = createSecretBox(SESSION_SECRET, 'signing-key');

interface PublicKeyAnswer {
  keyId: string;
  publicKey: string;
  publicKeyBase64: string;
  keys: Array<{ kid: string; publicKey: string; createdAt: string; retiredAt: string | null }>;
}

const publicKeyOf = async (app: TestApp): Promise<PublicKeyAnswer> =>
  (await app.http.get('/api/license/public-key').expect(200)).body;

/** A validate answer as its raw bytes, with the headers that sign it. */
async function validateRaw(app: TestApp, body: Record<string, unknown>) {
  const res = await app.http
    .post('/api/license/validate')
    .send(body)
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
  return {
    status: res.status,
    raw: res.body as Buffer,
    signature: String(res.headers['x-license-signature']),
    kid: String(res.headers['x-license-key-id']),
  };
}

/** Every column of every row, as a database dump would show them. */
async function dump(database: Database) {
  const { rows } = await database.pool.query('SELECT * FROM signing_keys');
  return rows as Array<Record<string, unknown>>;
}

function logCapture() {
  const text: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text.push(String(chunk));
      callback();
    },
  });
  return { logger: createLicenseLogger({ level: 'trace', destination }), all: () => text.join('') };
}

const rotate = (app: TestApp, session: Session) =>
  app.http.post('/api/admin/signing-keys/rotate').set(session.headers).send({});

/** The visible text of an element, spaces collapsed. */
const textOf = (element: Element) => (element.textContent ?? '').replace(/\s+/g, ' ');

describe(`signing keys (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  const log = logCapture();
  beforeAll(async () => {
    t = await buildTestApp({ env, logger: log.logger });
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('stores the first key sealed: a dump of signing_keys holds no private key and cannot sign', async () => {
    const rows = await dump(t.database);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    const key = await publicKeyOf(t);
    expect(row).toMatchObject({
      kid: key.keyId,
      private_key_pem: null,
      retired_at: null,
      public_key_pem: key.publicKey,
    });
    for (const value of Object.values(row!).filter((value): value is string => typeof value === 'string')) {
      expect(value).not.toContain('PRIVATE KEY');
      expect(() => createPrivateKey(value)).toThrow();
      expect(() => createPrivateKey(Buffer.from(value, 'base64'))).toThrow();
    }
    // The sealed value opens only with the service's SESSION_SECRET (and this purpose).
    expect(() =>
      createSecretBox('another-secret-of-enough-length-0123456789', 'signing-key').open(
        String(row!.private_key_sealed),
      ),
    ).toThrow();
    expect(() =>
      createSecretBox(SESSION_SECRET, 'webhook-endpoint-secret').open(String(row!.private_key_sealed)),
    ).toThrow();
    const opened = createPrivateKey(box.open(String(row!.private_key_sealed)));
    expect(kidOf(createPublicKey(opened))).toBe(key.keyId);
    // kid: the first 16 hex digits of the SHA-256 of the raw public key, as a client computes it.
    expect(kidOf(createPublicKey(key.publicKey))).toBe(key.keyId);
    expect(key.keys).toEqual([
      { kid: key.keyId, publicKey: key.publicKey, createdAt: expect.any(String), retiredAt: null },
    ]);
  });

  it('names the signing key in X-License-Key-Id on every signed answer, refusals and machine answers too', async () => {
    const key = await publicKeyOf(t);
    const license = await t.createLicense({});
    for (const body of [{ key: license.key, ip: '10.40.0.1' }, { key: 'TEST-unknown' }, { nonsense: true }]) {
      const answer = await validateRaw(t, body);
      expect(answer.kid).toBe(key.keyId);
      expect(verifyResponse(key.publicKey, answer.raw, answer.signature)).toBe(true);
    }
    const machine = await t.http
      .post('/api/license/machines/activate')
      .send({ key: license.key, fingerprint: 'fp-signing-1' });
    expect(machine.status).toBe(201);
    expect(machine.headers['x-license-key-id']).toBe(key.keyId);
  });

  it('rotates by API: 201 with the new key, audited; answers and files use it; the old key is listed as retired', async () => {
    const before = await publicKeyOf(t);
    const stranger = await t.signIn('not-an-admin-signing');
    expect((await rotate(t, stranger)).status).toBe(403);
    expect((await t.http.post('/api/admin/signing-keys/rotate').send({})).status).toBe(401);
    expect((await t.http.post('/api/admin/signing-keys/rotate').set('Cookie', admin.cookie).send({})).status).toBe(403);
    expect((await publicKeyOf(t)).keyId).toBe(before.keyId);

    const res = await rotate(t, admin);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      key: {
        kid: expect.stringMatching(/^[0-9a-f]{16}$/),
        publicKey: expect.stringContaining('BEGIN PUBLIC KEY'),
        createdAt: expect.any(String),
      },
    });
    const { kid, publicKey } = res.body.key;
    expect(kid).not.toBe(before.keyId);
    expect(kidOf(createPublicKey(publicKey))).toBe(kid);

    const audit = await t.database.pool.query(
      `SELECT user_id, action, resource_type, success, changes FROM audit_logs WHERE resource_id = 'signing-keys' ORDER BY created_at`,
    );
    expect(audit.rows).toEqual([
      {
        user_id: 'admin',
        action: 'create',
        resource_type: 'system',
        success: true,
        changes: { before: { currentKid: before.keyId }, after: { currentKid: kid, retiredKid: before.keyId } },
      },
    ]);

    // This instance signs with the new key at once.
    const license = await t.createLicense({});
    const answer = await validateRaw(t, { key: license.key, ip: '10.40.0.2' });
    expect(answer.status).toBe(200);
    expect(answer.kid).toBe(kid);
    expect(verifyResponse(publicKey, answer.raw, answer.signature)).toBe(true);
    expect(verifyResponse(before.publicKey, answer.raw, answer.signature)).toBe(false);
    const file = (await t.http.get(`/api/licenses/${license._id}/file`).set('Cookie', admin.cookie).expect(200)).body;
    expect(file).toMatchObject({ keyId: kid, kid });
    expect(verifyResponse(publicKey, Buffer.from(file.payload, 'base64'), file.signature)).toBe(true);

    const after = await publicKeyOf(t);
    expect(after).toMatchObject({ keyId: kid, publicKey });
    expect(after.keys.map((key) => [key.kid, key.retiredAt === null])).toEqual([
      [kid, true],
      [before.keyId, false],
    ]);
    const retired = after.keys[1]!;
    expect(retired.publicKey).toBe(before.publicKey);
    expect(Date.parse(retired.retiredAt!)).toBeGreaterThanOrEqual(Date.parse(retired.createdAt));
    expect(Date.parse(after.keys[0]!.createdAt)).toBeGreaterThanOrEqual(Date.parse(retired.createdAt));
    // A retired key keeps its public key only: it can never sign again.
    const rows = await dump(t.database);
    const retiredRow = rows.find((row) => row.kid === before.keyId)!;
    expect(retiredRow).toMatchObject({ private_key_pem: null, private_key_sealed: null });
    expect(retiredRow.retired_at).toBeInstanceOf(Date);
  });

  it('leaves exactly one current key after rotations at the same time, the newest', async () => {
    const answers = await Promise.all([rotate(t, admin), rotate(t, admin), rotate(t, admin)]);
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201]);
    const kids = answers.map((res) => res.body.key.kid as string);
    expect(new Set(kids).size).toBe(3);
    const current = await t.database.pool.query<{ kid: string }>(
      'SELECT kid FROM signing_keys WHERE retired_at IS NULL',
    );
    expect(current.rows).toHaveLength(1);
    expect(kids).toContain(current.rows[0]!.kid);
    const listed = await publicKeyOf(t);
    expect(listed.keyId).toBe(current.rows[0]!.kid);
    expect(listed.keys[0]!.kid).toBe(current.rows[0]!.kid);
    expect(listed.keys.filter((key) => key.retiredAt === null)).toHaveLength(1);
    // The database holds the line even against a write that skips the service.
    await expect(
      t.database.pool.query(
        `INSERT INTO signing_keys (id, kid, algorithm, public_key_pem, private_key_sealed) VALUES ('x', 'x', 'Ed25519', 'x', 'x')`,
      ),
    ).rejects.toThrow(/signing_keys_one_current/);
  });

  it('a second instance on the same database signs with a rotated key within a few seconds', async () => {
    const second = await buildTestApp({ env, database: t.database });
    try {
      const license = await t.createLicense({});
      const before = await publicKeyOf(t);
      expect((await validateRaw(second, { key: license.key })).kid).toBe(before.keyId);
      const started = Date.now();
      const { kid, publicKey } = (await rotate(t, admin).expect(201)).body.key;
      let answer = await validateRaw(second, { key: license.key });
      while (answer.kid !== kid && Date.now() - started < 5000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await validateRaw(second, { key: license.key });
      }
      expect(answer.kid).toBe(kid);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(verifyResponse(publicKey, answer.raw, answer.signature)).toBe(true);
      expect((await publicKeyOf(second)).keys.map((key) => key.kid)).toContain(before.keyId);
    } finally {
      await second.close();
    }
  });

  it('shows the keys in the console and rotates after asking, with the CSRF token, audited, with a message', async () => {
    const page = async (session: Session | null, status: number) => {
      const request = t.http.get('/settings/signing-keys');
      if (session) request.set('Cookie', session.cookie);
      const res = await request;
      expect(res.status).toBe(status);
      return res;
    };
    expect(String((await page(null, 303)).headers.location)).toBe('/?returnTo=%2Fsettings%2Fsigning-keys');
    await page(await t.signIn('not-an-admin-console'), 403);

    const before = await publicKeyOf(t);
    const shown = documentOf((await page(admin, 200)).text);
    const rows = [...shown.querySelectorAll('table.signing-keys tbody tr')];
    expect(rows.map((row) => row.getAttribute('data-kid'))).toEqual(before.keys.map((key) => key.kid));
    expect(textOf(rows[0]!)).toContain('current');
    expect(textOf(rows[1]!)).toContain('retired');
    const form = shown.querySelector('form[action="/settings/signing-keys/rotate"]')!;
    expect(form.getAttribute('data-ui-confirm')).toContain('Rotate the signing key?');
    expect(form.querySelector('input[name="_csrf"]')?.getAttribute('value')).toBe(admin.csrfToken);
    expect(textOf(shown.querySelector('nav[aria-label="Settings"]')!)).toContain('Signing keys');

    const withoutToken = await t.http
      .post('/settings/signing-keys/rotate')
      .set('Cookie', admin.cookie)
      .type('form')
      .send({});
    expect(withoutToken.status).toBe(403);
    expect((await publicKeyOf(t)).keyId).toBe(before.keyId);

    const audited = async () =>
      Number(
        (await t.database.pool.query(`SELECT count(*) FROM audit_logs WHERE resource_id = 'signing-keys' AND success`))
          .rows[0].count,
      );
    const auditsBefore = await audited();
    const posted = await t.http
      .post('/settings/signing-keys/rotate')
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: admin.csrfToken });
    expect(posted.status).toBe(303);
    expect(posted.headers.location).toBe('/settings/signing-keys');
    const after = await publicKeyOf(t);
    expect(after.keyId).not.toBe(before.keyId);
    expect(await audited()).toBe(auditsBefore + 1);
    const followed = documentOf((await page(admin, 200)).text);
    expect(textOf(followed.querySelector('[role="status"]')!)).toContain(`New signing key ${after.keyId} is current.`);
    expect(followed.querySelector('table.signing-keys tbody tr')?.getAttribute('data-kid')).toBe(after.keyId);
  });

  it('never logs key material', () => {
    const written = log.all();
    expect(written).not.toContain('PRIVATE KEY');
    expect(written).not.toMatch(/v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\./);
  });
});

/** The migrations folder as it was before 0019: an install made by the previous version. */
function migrationsBefore0019(): { folder: string; remove: () => void } {
  const folder = mkdtempSync(path.join(tmpdir(), 'license-migrations-'));
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ when: number }> };
  journal.entries = journal.entries.filter((entry) => entry.when < 1796600000000);
  writeFileSync(journalPath, JSON.stringify(journal, null, 2));
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

describe(`an install from before sealed keys (${testDatabaseBackend()})`, () => {
  let database: Database;
  const old = generateKeyPairSync('ed25519');
  const oldPublicPem = old.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const oldPrivatePem = old.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const oldKid = kidOf(old.publicKey);
  const oldAnswer = Buffer.from('{"success":true,"valid":true,"nonce":"from-before"}');
  const oldSignature = sign(null, oldAnswer, old.privateKey).toString('base64');
  const log = logCapture();

  beforeAll(async () => {
    const before = migrationsBefore0019();
    try {
      database = await createTestDatabase(before.folder);
    } finally {
      before.remove();
    }
    // What the previous version stored on its first start: one row, the private key in clear.
    await database.pool.query(
      `INSERT INTO signing_keys (id, algorithm, public_key_pem, private_key_pem) VALUES ('license-responses', 'Ed25519', $1, $2)`,
      [oldPublicPem, oldPrivatePem],
    );
    await runMigrations(database.db, migrationsFolder);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('gives the existing key its kid in the migration and seals it at start, once, with instances starting together', async () => {
    const migrated = await dump(database);
    expect(migrated).toEqual([
      expect.objectContaining({
        id: 'license-responses',
        kid: oldKid,
        private_key_pem: oldPrivatePem,
        private_key_sealed: null,
        retired_at: null,
      }),
    ]);

    const [first, second] = await Promise.all([
      buildTestApp({ env, database, logger: log.logger }),
      buildTestApp({ env, database, logger: log.logger }),
    ]);
    try {
      const rows = await dump(database);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: 'license-responses', kid: oldKid, private_key_pem: null, retired_at: null });
      expect(JSON.stringify(rows)).not.toContain('PRIVATE KEY');
      expect(box.open(String(rows[0]!.private_key_sealed))).toBe(oldPrivatePem);

      for (const app of [first, second]) {
        const key = await publicKeyOf(app);
        expect(key).toMatchObject({ keyId: oldKid, publicKey: oldPublicPem });
        expect(key.keys).toEqual([
          { kid: oldKid, publicKey: oldPublicPem, createdAt: expect.any(String), retiredAt: null },
        ]);
        // Answers of the previous version still verify against the listed key, and new ones against the old key.
        expect(verifyResponse(key.keys[0]!.publicKey, oldAnswer, oldSignature)).toBe(true);
        const answer = await validateRaw(app, { key: 'TEST-unknown', nonce: 'after' });
        expect(answer.kid).toBe(oldKid);
        expect(verifyResponse(oldPublicPem, answer.raw, answer.signature)).toBe(true);
      }
    } finally {
      await first.close();
      await second.close();
    }
    const written = log.all();
    expect(written.match(/sealed the stored signing key/g)).toHaveLength(1);
    expect(written).not.toContain('PRIVATE KEY');

    // A restart finds it sealed and changes nothing.
    const sealed = await dump(database);
    const again = await buildTestApp({ env, database });
    try {
      expect((await publicKeyOf(again)).keyId).toBe(oldKid);
      expect(await dump(database)).toEqual(sealed);
    } finally {
      await again.close();
    }
  });

  it('refuses to start with another SESSION_SECRET, naming the variable and no key material', async () => {
    const settings = await createSettingsStore({
      pool: database.pool,
      table: settingsTableName,
      namespace: licenseSettingsNamespace,
      schema: licenseSettingsSchema,
    });
    try {
      const started = createApp({
        config: loadConfig({
          NODE_ENV: 'test',
          LOG_LEVEL: 'silent',
          SESSION_SECRET: 'not-the-secret-that-sealed-it-0123456789',
        }),
        database,
        settings,
        logger: log.logger,
        oauth: undefined,
        publicUrl: 'http://127.0.0.1:9',
      });
      const failed = await started.then(
        async (app) => {
          await app.close();
          return undefined;
        },
        (error: Error) => error,
      );
      expect(failed?.message).toContain(`The signing key ${oldKid} cannot be opened: SESSION_SECRET`);
      expect(failed?.message).not.toContain('PRIVATE');
    } finally {
      await settings.close();
    }
  });
});
