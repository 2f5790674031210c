import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { createObjectStore, storageSettingsOf } from '@app/storage';
import { startS3Server, type TestS3Server } from '@app/storage/testing';
import { verifyResponse } from '../src/signing/signing.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Software releases (decisions.md, wave 4, "releases and update feeds") over HTTP, on both
// object stores: the filesystem store served by the service itself, and the S3 store against
// s3rver, a real S3-protocol server on loopback. Bytes go to presigned URLs with plain fetch.

const day = 86_400_000;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
let sequence = 0;

/** Tauri's dynamic update answer as its updater reads it: version (semver, `v` allowed), url, signature required; pub_date RFC 3339 and notes optional. */
function tauriFormatProblems(body: unknown): string[] {
  const problems: string[] = [];
  if (typeof body !== 'object' || body === null) return ['not an object'];
  const answer = body as Record<string, unknown>;
  const semver = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
  if (typeof answer.version !== 'string' || !semver.test(answer.version)) problems.push('version');
  if (typeof answer.url !== 'string' || !URL.canParse(answer.url)) problems.push('url');
  if (typeof answer.signature !== 'string') problems.push('signature');
  const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
  if (answer.pub_date !== undefined && (typeof answer.pub_date !== 'string' || !rfc3339.test(answer.pub_date)))
    problems.push('pub_date');
  if (answer.notes !== undefined && typeof answer.notes !== 'string') problems.push('notes');
  return problems;
}

const stores = [
  [
    'filesystem',
    () => {
      const folder = mkdtempSync(path.join(os.tmpdir(), 'releases-'));
      return Promise.resolve({
        env: { STORAGE_URL: pathToFileURL(folder).href },
        close: () => Promise.resolve(rmSync(folder, { recursive: true, force: true })),
      });
    },
  ],
  [
    'S3',
    async () => {
      const s3: TestS3Server = await startS3Server();
      return {
        env: {
          STORAGE_URL: `s3://${s3.bucket}/artifacts`,
          AWS_ENDPOINT_URL_S3: s3.endpoint,
          AWS_REGION: s3.region,
          AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
          S3_FORCE_PATH_STYLE: 'true',
        },
        close: () => s3.close(),
      };
    },
  ],
] as const;

describe.each(stores)(`releases and update feeds (%s store, ${testDatabaseBackend()})`, (name, makeStore) => {
  let t: TestApp;
  let admin: Session;
  let closeStore: () => Promise<void>;
  // The service's clock: tests move it forward (a license expiring, a link lapsing).
  let offset = 0;
  const clock = () => new Date(Date.now() + offset);

  beforeAll(async () => {
    const store = await makeStore();
    closeStore = store.close;
    t = await buildTestApp({ env: store.env, now: clock });
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
    await closeStore?.();
  });

  const post = (url: string, body: object = {}) => t.http.post(url).set(admin.headers).send(body);
  const get = (url: string) => t.http.get(url).set('Cookie', admin.cookie);
  const upgrade = (body: Record<string, unknown>) => t.http.post('/api/license/releases/upgrade').send(body);

  async function entitlement() {
    const code = `REL_${process.pid}_${++sequence}`;
    expect((await post('/api/entitlements', { code, name: code })).status).toBe(201);
    return code;
  }

  /** A draft release of `productId` with one artifact per file, uploaded and checked. */
  async function release(
    productId: string,
    body: Record<string, unknown>,
    files: Array<{ platform?: string; arch?: string; bytes?: Buffer; signature?: string }> = [{}],
  ) {
    const created = await post(`/api/products/${productId}/releases`, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.release._id as string;
    for (const [index, file] of files.entries()) {
      const bytes = file.bytes ?? randomBytes(2048 + index);
      const added = await post(`/api/releases/${id}/artifacts`, {
        filename: `app-${index}.tar.gz`,
        platform: file.platform ?? 'linux',
        arch: file.arch ?? 'x86_64',
        size: bytes.length,
        sha256: sha256(bytes),
        ...(file.signature ? { signature: file.signature } : {}),
      });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      const put = await fetch(added.body.uploadUrl, {
        method: 'PUT',
        body: new Uint8Array(bytes),
        headers: added.body.uploadHeaders,
      });
      expect(put.status).toBe(200);
      const done = await post(`/api/releases/${id}/artifacts/${added.body.artifact._id}/complete`);
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.artifact.status).toBe('uploaded');
    }
    return id;
  }
  const publish = async (id: string) => {
    const res = await post(`/api/releases/${id}/publish`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.release;
  };

  it('is for admins: 401 without a session, 403 for someone else', async () => {
    const product = await t.createProduct();
    expect((await t.http.get(`/api/products/${product._id}/releases`)).status).toBe(401);
    const somebody = await t.signIn(`somebody-${++sequence}`);
    expect(
      (await t.http.post(`/api/products/${product._id}/releases`).set(somebody.headers).send({ version: '1.0.0' }))
        .status,
    ).toBe(403);
  });

  it("lets the console's script reach the store's upload URLs (Content-Security-Policy connect-src)", async () => {
    const product = await t.createProduct();
    const csp = String((await get(`/products/${product._id}/releases`)).headers['content-security-policy']);
    const connect = /connect-src ([^;]+)/.exec(csp)?.[1];
    if (name === 'S3') expect(connect).toBe(`'self' ${new URL(String(t.config.AWS_ENDPOINT_URL_S3)).origin}`);
    else expect(connect).toBeUndefined();
  });

  it('creates drafts with a semantic version once per product, checks channels and entitlements', async () => {
    const product = await t.createProduct();
    const created = await post(`/api/products/${product._id}/releases`, { version: '1.0.0', notes: 'First' });
    expect(created.status).toBe(201);
    expect(created.body.release).toMatchObject({
      version: '1.0.0',
      channel: 'stable',
      status: 'draft',
      publishedAt: null,
      artifacts: [],
    });
    const again = await post(`/api/products/${product._id}/releases`, { version: '1.0.0' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('Release already exists');
    expect((await post(`/api/products/${product._id}/releases`, { version: '1.0' })).status).toBe(400);
    expect((await post(`/api/products/${product._id}/releases`, { version: '1.0.1', channel: 'nightly' })).status).toBe(
      400,
    );
    const unknown = await post(`/api/products/${product._id}/releases`, {
      version: '1.0.2',
      entitlements: ['NOPE_NONE'],
    });
    expect(unknown.status).toBe(400);
    expect(
      (await post('/api/products/00000000-0000-0000-0000-000000000000/releases', { version: '1.0.0' })).status,
    ).toBe(404);
    const list = await get(`/api/products/${product._id}/releases`);
    expect(list.body.releases.map((r: { version: string }) => r.version)).toEqual(['1.0.0']);
    const audit = await get(`/api/audit?resourceId=${created.body.release._id}`);
    expect(audit.body.auditLogs.map((entry: { action: string }) => entry.action)).toContain('create');
  });

  it('publishes only when every artifact has its checked bytes; refuses bytes of another size or SHA-256', async () => {
    const product = await t.createProduct();
    const id = (await post(`/api/products/${product._id}/releases`, { version: '2.0.0' })).body.release._id;
    const empty = await post(`/api/releases/${id}/publish`);
    expect(empty.status).toBe(409);
    expect(empty.body.error).toBe('Artifacts missing');

    const bytes = randomBytes(4096);
    const added = await post(`/api/releases/${id}/artifacts`, {
      filename: 'app.zip',
      platform: 'windows',
      arch: 'x86_64',
      size: bytes.length,
      sha256: sha256(bytes),
    });
    expect(added.status).toBe(201);
    expect(added.body.artifact.status).toBe('waiting');
    const artifactId = added.body.artifact._id;
    const complete = () => post(`/api/releases/${id}/artifacts/${artifactId}/complete`);
    expect((await complete()).body.error).toBe('Artifact not uploaded');
    expect((await post(`/api/releases/${id}/publish`)).body.error).toBe('Artifacts missing');
    const taken = await post(`/api/releases/${id}/artifacts`, {
      filename: 'app.zip',
      platform: 'windows',
      arch: 'x86_64',
      size: 1,
      sha256: sha256(Buffer.from('x')),
    });
    expect(taken.status).toBe(409);

    // The same number of other bytes: the store takes them, the check refuses them and deletes them.
    const other = randomBytes(4096);
    expect((await fetch(added.body.uploadUrl, { method: 'PUT', body: new Uint8Array(other) })).status).toBe(200);
    const refused = await complete();
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("Upload does not match the artifact's size or SHA-256");
    expect(refused.body.details.sha256).toEqual({ expected: sha256(bytes), received: sha256(other) });
    expect((await get(`/api/releases/${id}`)).body.release.artifacts[0].status).toBe('waiting');
    expect((await complete()).body.error).toBe('Artifact not uploaded');

    // Fewer bytes than declared never arrive as an object of that key.
    const fresh = await post(`/api/releases/${id}/artifacts/${artifactId}/upload-url`);
    expect(fresh.status).toBe(200);
    const short = await fetch(fresh.body.uploadUrl, {
      method: 'PUT',
      body: new Uint8Array(bytes.subarray(0, 100)),
    }).catch(() => undefined);
    if (short?.ok) expect((await complete()).status).toBe(400);
    else expect((await complete()).body.error).toBe('Artifact not uploaded');

    expect((await fetch(fresh.body.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes) })).status).toBe(200);
    expect((await complete()).body.artifact).toMatchObject({ status: 'uploaded', size: 4096, sha256: sha256(bytes) });
    const published = await publish(id);
    expect(published.status).toBe('published');
    expect(Date.parse(published.publishedAt)).toBeGreaterThan(0);
    expect(
      (
        await post(`/api/releases/${id}/artifacts`, {
          filename: 'b.zip',
          platform: 'mac',
          arch: 'arm64',
          size: 1,
          sha256: sha256(bytes),
        })
      ).body.error,
    ).toBe('Release is not a draft');
    expect((await t.http.delete(`/api/releases/${id}`).set(admin.headers)).status).toBe(409);
    const yanked = await post(`/api/releases/${id}/yank`);
    expect(yanked.body.release.status).toBe('yanked');
    expect((await t.http.delete(`/api/releases/${id}`).set(admin.headers)).status).toBe(200);
    expect((await get(`/api/releases/${id}`)).status).toBe(404);
  });

  /** The app's store as the test sees it (the same STORAGE_URL), and the keys of a release's artifacts. */
  const storeOfApp = () =>
    createObjectStore(storageSettingsOf(t.config), { publicUrl: `${t.baseUrl}/files`, signingSecret: 'unused' });
  async function objectKeysOf(releaseId: string) {
    const { rows } = await t.database.pool.query<{ storage_key: string }>(
      'SELECT storage_key FROM release_artifacts WHERE release_id = $1 ORDER BY storage_key',
      [releaseId],
    );
    return rows.map((row) => row.storage_key);
  }
  const present = async (keys: string[]) => {
    const store = storeOfApp();
    return (await Promise.all(keys.map((key) => store.head(key)))).filter(Boolean).length;
  };
  const queued = async () =>
    Number((await t.database.pool.query('SELECT count(*) AS n FROM release_object_removals')).rows[0].n);

  it("deleting an artifact, a release or the product removes the artifacts' objects", async () => {
    const product = await t.createProduct();
    const draft = await release(product._id, { version: '1.0.0' }, [{}, {}]);
    const [removedKey, keptKey] = await objectKeysOf(draft);
    const [removedArtifact] = (await get(`/api/releases/${draft}`)).body.release.artifacts as Array<{ _id: string }>;
    expect(await present([removedKey!, keptKey!])).toBe(2);

    // An artifact removed from a draft: its object goes with it.
    expect(
      (await t.http.delete(`/api/releases/${draft}/artifacts/${removedArtifact!._id}`).set(admin.headers)).status,
    ).toBe(200);
    expect(await present([removedKey!, keptKey!])).toBe(1);
    // The release: its other object too.
    expect((await t.http.delete(`/api/releases/${draft}`).set(admin.headers)).status).toBe(200);
    expect(await present([keptKey!])).toBe(0);

    // The product (no licenses): its releases go by cascade, their objects with the removal job.
    const published = await release(product._id, { version: '1.1.0' }, [{}, {}]);
    await publish(published);
    const publishedKeys = await objectKeysOf(published);
    expect((await t.http.delete(`/api/products/${product._id}`).set(admin.headers)).status).toBe(200);
    expect(await objectKeysOf(published)).toEqual([]);
    expect(await t.context.services.releases.removeQueuedObjects()).toBe(2);
    expect(await present(publishedKeys)).toBe(0);
    expect(await queued()).toBe(0);
  });

  it('deletes while the store is down; the removal job removes the objects once it is back', async () => {
    const product = await t.createProduct();
    const kept = await release(product._id, { version: '1.0.0' });
    const doomed = await release(product._id, { version: '2.0.0' }, [{}, {}]);
    const keys = await objectKeysOf(doomed);
    const [firstArtifact] = (await get(`/api/releases/${doomed}`)).body.release.artifacts as Array<{ _id: string }>;

    // A second instance on the same data whose store does not answer (nothing listens on port 9).
    const cut = await buildTestApp({
      database: t.database,
      now: clock,
      env: {
        STORAGE_URL: 's3://down',
        AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9',
        AWS_ACCESS_KEY_ID: 'x',
        AWS_SECRET_ACCESS_KEY: 'x',
        S3_FORCE_PATH_STYLE: 'true',
      },
    });
    try {
      const headers = (await cut.admin()).headers;
      expect(
        (await cut.http.delete(`/api/releases/${doomed}/artifacts/${firstArtifact!._id}`).set(headers)).status,
      ).toBe(200);
      expect((await cut.http.delete(`/api/releases/${doomed}`).set(headers)).status).toBe(200);
      expect((await get(`/api/releases/${doomed}`)).status).toBe(404);
      // Still down: the objects stay queued.
      expect(await cut.context.services.releases.removeQueuedObjects()).toBe(0);
    } finally {
      await cut.close();
    }
    expect(await present(keys)).toBe(2);
    expect(await queued()).toBe(2);

    // The store is back: the next run removes them, and nothing else.
    expect(await t.context.services.releases.removeQueuedObjects()).toBe(2);
    expect(await present(keys)).toBe(0);
    expect(await queued()).toBe(0);
    expect(await present(await objectKeysOf(kept))).toBe(1);
  });

  it('the orphan sweep removes objects no artifact names and keeps the others', async () => {
    const product = await t.createProduct();
    const kept = await release(product._id, { version: '1.0.0' });
    const orphan = `releases/${randomUUID()}/${randomUUID()}/lost.tar.gz`;
    await storeOfApp().put(orphan, Readable.from([Buffer.alloc(3)]), { size: 3 });
    expect(await t.context.services.releases.sweepOrphanObjects()).toBe(1);
    expect(await present([orphan])).toBe(0);
    expect(await present(await objectKeysOf(kept))).toBe(1);
  });

  it('answers upgrades signed, by channel and entitlement, with links that count downloads and lapse after 10 minutes', async () => {
    const product = await t.createProduct();
    const pro = await entitlement();
    const bytes = randomBytes(10_000);
    const v1 = await release(product._id, { version: '1.0.0' }, [{ bytes }]);
    await publish(v1);
    await publish(await release(product._id, { version: '1.1.0-beta.1', channel: 'beta' }));
    await publish(await release(product._id, { version: '1.2.0', entitlements: [pro] }));
    await release(product._id, { version: '9.0.0' }); // a draft: offered to nobody
    const license = await t.createLicense({ product: product._id });

    const res = await upgrade({ key: license.key, currentVersion: '0.9.0', nonce: 'n-1' });
    expect(res.status).toBe(200);
    const publicKey = (await t.http.get('/api/license/public-key')).body.publicKey;
    expect(verifyResponse(publicKey, Buffer.from(res.text), String(res.headers['x-license-signature']))).toBe(true);
    expect(res.body.request).toEqual({ key: license.key, hwid: null, entitlements: null, nonce: 'n-1' });
    expect(Date.parse(res.body.issuedAt)).toBeGreaterThan(0);
    expect(res.body.upgrade).toMatchObject({ version: '1.0.0', channel: 'stable', notes: null });
    const [artifact] = res.body.upgrade.artifacts;
    expect(artifact).toMatchObject({
      filename: 'app-0.tar.gz',
      platform: 'linux',
      arch: 'x86_64',
      size: 10_000,
      sha256: sha256(bytes),
    });

    // Beta asks get beta and anything more stable; the entitled release needs its entitlement.
    expect((await upgrade({ key: license.key, currentVersion: '1.0.0', channel: 'beta' })).body.upgrade.version).toBe(
      '1.1.0-beta.1',
    );
    expect((await upgrade({ key: license.key, currentVersion: '1.0.0' })).body.upgrade).toBeNull();
    const entitled = await t.createLicense({ product: product._id, entitlements: [pro] });
    expect((await upgrade({ key: entitled.key, currentVersion: '1.0.0', channel: 'beta' })).body.upgrade.version).toBe(
      '1.2.0',
    );
    expect((await upgrade({ key: entitled.key, currentVersion: '1.2.0' })).body.upgrade).toBeNull();
    expect(
      (await upgrade({ key: entitled.key, currentVersion: '0.1.0', platform: 'windows' })).body.upgrade,
    ).toBeNull();

    // Refusals are validate's, signed; bad input is 400.
    const unknown = await upgrade({ key: 'NOPE-NOPE', currentVersion: '1.0.0' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('License not found');
    expect(unknown.headers['x-license-signature']).toBeTruthy();
    expect((await upgrade({ key: license.key, currentVersion: 'one' })).status).toBe(400);

    // The link answers the bytes and counts the download.
    const download = await fetch(artifact.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    const counted = (await get(`/api/releases/${v1}`)).body.release;
    expect(counted.artifacts[0].downloads).toBe(1);
    expect(counted.downloads).toBe(1);
    const altered = await fetch(artifact.url.replace(/signature=./, 'signature=A'), { redirect: 'manual' });
    expect(altered.status).toBe(403);
    offset += 11 * 60_000;
    try {
      const lapsed = await fetch(artifact.url, { redirect: 'manual' });
      expect(lapsed.status).toBe(403);
      expect(((await lapsed.json()) as { error: string }).error).toBe('This link has expired');
    } finally {
      offset -= 11 * 60_000;
    }

    // A yanked release is no longer offered, and its links stop working.
    const fresh = (await upgrade({ key: license.key, currentVersion: '0.9.0' })).body.upgrade.artifacts[0].url;
    await post(`/api/releases/${v1}/yank`);
    expect((await upgrade({ key: license.key, currentVersion: '0.9.0' })).body.upgrade).toBeNull();
    expect((await fetch(fresh, { redirect: 'manual' })).status).toBe(404);
  });

  it('an expired maintain license gets the last release published before its expiry, not a newer one', async () => {
    const product = await t.createProduct();
    await publish(await release(product._id, { version: '1.0.0' }));
    const maintain = await t.createLicense({
      product: product._id,
      expirationStrategy: 'maintain',
      expiresAt: new Date(clock().getTime() + day),
    });
    const revoke = await t.createLicense({ product: product._id, expiresAt: new Date(clock().getTime() + day) });
    const forever = await t.createLicense({ product: product._id });
    offset += 2 * day;
    try {
      await publish(await release(product._id, { version: '1.1.0' }));
      const kept = await upgrade({ key: maintain.key, currentVersion: '0.1.0' });
      expect(kept.status).toBe(200);
      expect(kept.body.upgrade.version).toBe('1.0.0');
      expect((await upgrade({ key: maintain.key, currentVersion: '1.0.0' })).body.upgrade).toBeNull();
      expect((await upgrade({ key: forever.key, currentVersion: '0.1.0' })).body.upgrade.version).toBe('1.1.0');
      const expired = await upgrade({ key: revoke.key, currentVersion: '0.1.0' });
      expect(expired.status).toBe(403);
      expect(expired.body.error).toBe('License expired');
    } finally {
      offset -= 2 * day;
    }
  });

  it("answers Tauri's dynamic update format, 204 when up to date", async () => {
    const product = await t.createProduct();
    const signature = 'dW50cnVzdGVkIGNvbW1lbnQ6IHNpZ25hdHVyZQ==';
    await publish(
      await release(product._id, { version: '2.1.0', notes: 'Faster' }, [
        { platform: 'linux', arch: 'x86_64', signature },
        { platform: 'windows', arch: 'x86_64' },
      ]),
    );
    const license = await t.createLicense({ product: product._id });
    const feed = (target: string, arch: string, version: string, key: string | null = license.key) => {
      const req = t.http.get(`/api/license/updates/tauri/${product._id}/${target}/${arch}/${version}`);
      return key ? req.set('Authorization', `License ${key}`) : req;
    };
    const res = await feed('linux', 'x86_64', '2.0.0');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['notes', 'pub_date', 'signature', 'url', 'version']);
    expect(tauriFormatProblems(res.body)).toEqual([]);
    expect(res.body).toMatchObject({ version: '2.1.0', signature, notes: 'Faster' });
    // The format's published example passes the same check (tauri.app, "Dynamic Update Server").
    expect(
      tauriFormatProblems({
        version: '0.2.0',
        pub_date: '2020-09-18T12:29:53+01:00',
        url: 'https://mycompany.example.com/myapp/releases/myrelease.tar.gz',
        signature: 'Content of the relevant .sig file',
        notes: 'These are some release notes',
      }),
    ).toEqual([]);
    expect((await fetch(res.body.url)).status).toBe(200);
    expect((await feed('linux', 'x86_64', '2.1.0')).status).toBe(204);
    expect((await feed('linux', 'x86_64', 'v2.1.0')).status).toBe(204);
    // No signature for Tauri to check: not offered.
    expect((await feed('windows', 'x86_64', '2.0.0')).status).toBe(204);
    expect((await feed('linux', 'x86_64', '2.0.0', null)).status).toBe(401);
    expect((await feed('linux', 'x86_64', '2.0.0', 'NOPE-NOPE')).status).toBe(400);
    const other = await t.createLicense();
    expect((await feed('linux', 'x86_64', '2.0.0', other.key)).status).toBe(400);
  });
  it("lists in the portal's Downloads what the customer's licenses cover, and runs the console's forms", async () => {
    const product = await t.createProduct({ name: `Covered ${++sequence}` });
    const pro = await entitlement();
    await publish(await release(product._id, { version: '1.0.0' }));
    await publish(await release(product._id, { version: '1.5.0', entitlements: [pro] }));
    const { customer, session } = await t.customer();
    await t.createLicense({ product: product._id, customer: customer._id });
    const page = await t.http.get('/my-downloads').set('Cookie', session.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`${product.name} 1.0.0`);
    expect(page.text).not.toContain(`${product.name} 1.5.0`);
    const link = /href="([^"]+\/api\/license\/downloads\/[^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
    expect((await fetch(link)).status).toBe(200);
    // Another customer sees none of it; an admin who is not a customer gets the not-found page.
    const other = await t.customer();
    expect((await t.http.get('/my-downloads').set('Cookie', other.session.cookie)).text).not.toContain(product.name);
    expect((await t.http.get('/my-downloads').set('Cookie', admin.cookie)).status).toBe(404);

    // The console: the page, a refused draft (its reason shown), a draft, publish refused without files.
    const consolePage = `/products/${product._id}/releases`;
    expect((await get(consolePage)).text).toContain('1.5.0');
    const form = (url: string, body: Record<string, string>) =>
      t.http
        .post(url)
        .set('Cookie', admin.cookie)
        .type('form')
        .send({ _csrf: admin.csrfToken, ...body });
    expect((await form(consolePage, { version: 'one', channel: 'stable' })).status).toBe(303);
    expect((await get(consolePage)).text).toContain('Version: a semantic version such as 1.2.3');
    expect((await form(consolePage, { version: '3.0.0', channel: 'beta', notes: 'Big' })).status).toBe(303);
    const draft = (await get(`/api/products/${product._id}/releases`)).body.releases.find(
      (found: { version: string }) => found.version === '3.0.0',
    );
    expect(draft).toMatchObject({ channel: 'beta', notes: 'Big', status: 'draft' });
    await form(`/releases/${draft._id}/publish`, {});
    expect((await get(consolePage)).text).toContain('Artifacts missing.');
    expect(
      (await t.http.post(`/releases/${draft._id}/publish`).set('Cookie', admin.cookie).type('form').send({})).status,
    ).toBe(403);
  });
});
