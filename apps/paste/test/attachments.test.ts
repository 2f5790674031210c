import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { FileObjectStore, S3ObjectStore, type ObjectStore } from '@app/storage';
import { startS3Server, type TestS3Server } from '@app/storage/testing';
import { keyCheck, newKey, seal } from '../../../packages/paste-cli/src/envelope.js';
import { createAttachmentService, objectKey } from '../src/attachments/attachments.service.js';
import { OWNER_ID, RELAXED_LIMITS, startTestSite, type TestSite } from './helpers.js';

// Attachments (decisions.md wave 4, "Attachments" and "Storage"), every rule through HTTP, on
// both stores: the filesystem store served by the service itself, and the S3 store against
// s3rver (a real S3-protocol server on loopback). The database backend is the suite's.

/** Store clocks run this far ahead: a test moves it to make the URLs it signs lapse (or not). */
let clockOffsetMs = 0;
const storeNow = () => new Date(Date.now() + clockOffsetMs);

interface StoreKind {
  name: 'file' | 's3';
  start(): Promise<{ make: (baseUrl: string) => ObjectStore; close(): Promise<void> }>;
}

const stores: StoreKind[] = [
  {
    name: 'file',
    start: () => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'paste-attachments-'));
      return Promise.resolve({
        make: (baseUrl: string) =>
          new FileObjectStore({ root, publicUrl: `${baseUrl}/objects`, signingSecret: 'secret', now: storeNow }),
        close: () => Promise.resolve(rmSync(root, { recursive: true, force: true })),
      });
    },
  },
  {
    name: 's3',
    start: async () => {
      const server: TestS3Server = await startS3Server();
      return {
        make: () => new S3ObjectStore({ ...server, forcePathStyle: true, now: storeNow }),
        close: () => server.close(),
      };
    },
  },
];

const bytesOf = (size: number) => randomBytes(size);

async function put(url: string, body: Buffer): Promise<number> {
  const response = await fetch(url, {
    method: 'PUT',
    body: new Uint8Array(body),
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  await response.arrayBuffer();
  return response.status;
}

async function download(url: string): Promise<{ status: number; body: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

describe.each(stores)(`attachments on the $name store (${testDatabaseBackend()})`, (kind) => {
  let site: TestSite;
  let store: Awaited<ReturnType<StoreKind['start']>>;

  beforeAll(async () => {
    store = await kind.start();
    site = await startTestSite(RELAXED_LIMITS, { objects: store.make });
  });
  afterAll(async () => {
    await site?.close();
    await store?.close();
  });
  beforeEach(async () => {
    clockOffsetMs = 0;
    await site.reset();
  });

  /** Creates a paste with these files, uploads them and completes it; answers slug and token. */
  async function pasteWithFiles(
    files: Array<{ bytes: Buffer; name?: string; type?: string }>,
    extra: Record<string, unknown> = { content: 'see the files' },
  ) {
    const created = await site.http.post('/api/paste').send({
      ...extra,
      attachments: files.map(({ bytes, name, type }) => ({ size: bytes.length, name, type })),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { slug, deleteToken, attachments } = created.body as {
      slug: string;
      deleteToken: string;
      attachments: Array<{ id: string; uploadUrl: string }>;
    };
    expect(attachments).toHaveLength(files.length);
    for (const [index, file] of files.entries()) expect(await put(attachments[index]!.uploadUrl, file.bytes)).toBe(200);
    const completed = await site.http.post(`/api/paste/${slug}/complete`).set('X-Delete-Token', deleteToken);
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    return { slug, deleteToken, ids: attachments.map((file) => file.id) };
  }

  const rawJson = (slug: string) => site.http.get(`/paste/${slug}/raw`).set('Accept', 'application/json');

  it('declare, upload by URL, complete: 404 until complete, then a counted view lists the files and they download byte for byte', async () => {
    const first = bytesOf(70_000);
    const second = bytesOf(0);
    const created = await site.http.post('/api/paste').send({
      content: 'two files',
      attachments: [
        { size: first.length, name: 'report.csv', type: 'text/csv' },
        { size: second.length, name: 'empty.bin' },
      ],
    });
    expect(created.status).toBe(200);
    const { slug, deleteToken, attachments } = created.body;
    expect(attachments).toEqual([
      { id: expect.stringMatching(/^[0-9a-f]{32}$/), uploadUrl: expect.stringMatching(/^http/) },
      { id: expect.stringMatching(/^[0-9a-f]{32}$/), uploadUrl: expect.stringMatching(/^http/) },
    ]);
    // Not readable until complete.
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(404);
    expect((await site.http.get(`/paste/${slug}/raw`)).status).toBe(404);
    // Completing before the bytes arrived: 409 naming the missing files.
    const early = await site.http.post(`/api/paste/${slug}/complete`).set('X-Delete-Token', deleteToken);
    expect(early.status).toBe(409);
    expect(early.body.error).toBe(`Attachments not uploaded: ${attachments[0].id}, ${attachments[1].id}`);

    expect(await put(attachments[0].uploadUrl, first)).toBe(200);
    expect(await put(attachments[1].uploadUrl, second)).toBe(200);
    // The delete token is the credential.
    expect((await site.http.post(`/api/paste/${slug}/complete`)).status).toBe(403);
    expect((await site.http.post(`/api/paste/${slug}/complete`).set('X-Delete-Token', 'wrong')).body).toEqual({
      error: 'Invalid delete token',
    });
    expect((await site.http.post('/api/paste/nope1234/complete').set('X-Delete-Token', deleteToken)).status).toBe(404);
    const completed = await site.http.post(`/api/paste/${slug}/complete`).set('X-Delete-Token', deleteToken);
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({ success: true, slug, url: `/paste/${slug}` });
    // Again: the same answer.
    expect((await site.http.post(`/api/paste/${slug}/complete`).set('X-Delete-Token', deleteToken)).status).toBe(200);

    const viewed = await rawJson(slug);
    expect(viewed.status).toBe(200);
    expect(viewed.body.content).toBe('two files');
    expect(viewed.body.attachments).toEqual([
      { id: attachments[0].id, size: first.length, url: expect.any(String), name: 'report.csv', type: 'text/csv' },
      { id: attachments[1].id, size: 0, url: expect.any(String), name: 'empty.bin' },
    ]);
    const got = await download(viewed.body.attachments[0].url);
    expect(got.status).toBe(200);
    expect(got.body.equals(first)).toBe(true);
    expect((await download(viewed.body.attachments[1].url)).body.length).toBe(0);
    // Plain text without asking for JSON: the content only.
    const text = await site.http.get(`/paste/${slug}/raw`);
    expect(text.text).toBe('two files');
    // The page lists names, sizes and download links.
    const page = await site.http.get(`/paste/${slug}`);
    expect(page.text).toContain('report.csv');
    expect(page.text).toContain('68.4 KB');
    expect(page.text).toMatch(/href="http[^"]+"[^>]*download="report.csv"/);
    // The views were counted: 3.
    const owner = await site.session(OWNER_ID);
    const stats = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(stats.body.totalViews).toBe(3);
  });

  it('complete checks each size by head: bytes of another size keep the paste unreadable', async () => {
    const created = await site.http.post('/api/paste').send({ content: 'x', attachments: [{ size: 10, name: 'a' }] });
    const { slug, deleteToken, attachments } = created.body;
    // Straight into the store, past the URL (which would refuse another length).
    await site.objects.put(objectKey(attachments[0].id), Readable.from([Buffer.alloc(9)]), { size: 9 });
    const refused = await site.http.post(`/api/paste/${slug}/complete`).set('X-Delete-Token', deleteToken);
    expect(refused.status).toBe(409);
    expect((await site.http.get(`/paste/${slug}/raw`)).status).toBe(404);
  });

  it('refuses bad declarations with clear 4xx: too large (413), too many, bad sizes, names beside an encrypted paste', async () => {
    await site.reset({ ...RELAXED_LIMITS, maxAttachmentBytes: 1000 });
    const tooLarge = await site.http
      .post('/api/paste')
      .send({ content: 'x', attachments: [{ size: 600 }, { size: 401 }] });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error).toBe('Attachments too large');
    expect(
      (await site.http.post('/api/paste').send({ content: 'x', attachments: [{ size: 600 }, { size: 400 }] })).status,
    ).toBe(200);

    const eleven = await site.http
      .post('/api/paste')
      .send({ content: 'x', attachments: Array.from({ length: 11 }, () => ({ size: 1 })) });
    expect(eleven.status).toBe(400);
    expect(JSON.stringify(eleven.body)).toContain('at most 10 files');
    for (const size of [-1, 1.5, '12', 6 * 1024 ** 3]) {
      const bad = await site.http.post('/api/paste').send({ content: 'x', attachments: [{ size }] });
      expect(bad.status, String(size)).toBe(400);
    }
    const badName = await site.http.post('/api/paste').send({ content: 'x', attachments: [{ size: 1, name: 'a/b' }] });
    expect(badName.status).toBe(400);
    const key = newKey();
    const encrypted = await seal({ content: 'secret' }, key);
    const named = await site.http
      .post('/api/paste')
      .send({ encrypted, attachments: [{ size: 100, name: 'secret.txt' }] });
    expect(named.status).toBe(400);
    expect(JSON.stringify(named.body)).toContain('inside encrypted');
  });

  it('the owner sets maxAttachmentBytes (default 100 MiB, at most 5 GiB)', async () => {
    const owner = await site.session(OWNER_ID);
    const before = await site.http.get('/api/settings').set('Cookie', owner.cookie);
    expect(before.body.settings?.maxAttachmentBytes ?? before.body.maxAttachmentBytes).toBe(100 * 1024 ** 2);
    const tooBig = await site.http
      .post('/api/settings/security')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf)
      .send({ maxAttachmentBytes: 5 * 1024 ** 3 + 1 });
    expect(tooBig.status).toBe(400);
    const set = await site.http
      .post('/api/settings/security')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf)
      .send({ maxAttachmentBytes: 50 });
    expect(set.status).toBe(200);
    expect((await site.http.post('/api/paste').send({ content: 'x', attachments: [{ size: 51 }] })).status).toBe(413);
  });

  it('a one-view paste hands out its URLs exactly once; previews and HEAD hand out none', async () => {
    const bytes = bytesOf(1000);
    const { slug } = await pasteWithFiles([{ bytes, name: 'once.bin' }], { content: 'once', maxViews: 1 });
    expect((await site.http.head(`/paste/${slug}`)).status).toBe(200);
    const preview = await site.http.get(`/paste/${slug}`).set('User-Agent', 'Slackbot-LinkExpanding 1.0');
    expect(preview.text).not.toContain('once.bin');
    const views = await Promise.all([rawJson(slug), rawJson(slug), rawJson(slug)]);
    const shown = views.filter((view) => view.status === 200);
    expect(shown).toHaveLength(1);
    expect(views.filter((view) => view.status === 410)).toHaveLength(2);
    expect(JSON.stringify(views.filter((view) => view.status === 410).map((view) => view.body))).not.toContain('http');
    expect((await download(shown[0]!.body.attachments[0].url)).body.equals(bytes)).toBe(true);
  });

  it('download URLs work for 10 minutes, then 403', async () => {
    const bytes = bytesOf(100);
    const { slug } = await pasteWithFiles([{ bytes, name: 'a.bin' }]);
    clockOffsetMs = -9 * 60_000;
    const fresh = (await rawJson(slug)).body.attachments[0].url as string;
    expect((await download(fresh)).status).toBe(200);
    clockOffsetMs = -11 * 60_000;
    const lapsed = (await rawJson(slug)).body.attachments[0].url as string;
    expect((await download(lapsed)).status).toBe(403);
  });

  it('an encrypted paste lists its files only to the key holder, in its JSON; names stay inside the ciphertext', async () => {
    const key = newKey();
    const encrypted = await seal({ content: 'secret' }, key);
    const bytes = bytesOf(5000);
    const { slug } = await pasteWithFiles([{ bytes }], { encrypted });
    expect((await site.http.post(`/paste/${slug}/raw`).send({})).status).toBe(403);
    const viewed = await site.http
      .post(`/paste/${slug}/raw`)
      .set('X-Paste-Key-Check', await keyCheck(key))
      .send({});
    expect(viewed.status).toBe(200);
    expect(viewed.body.ciphertext).toBe(encrypted.ciphertext);
    expect(viewed.body.attachments).toEqual([{ id: expect.any(String), size: 5000, url: expect.any(String) }]);
    expect((await download(viewed.body.attachments[0].url)).body.equals(bytes)).toBe(true);
  });

  it('removes the objects after delete, expiry and the last view, once the URLs handed out lapsed; retries a store that is down', async () => {
    const db = site.database.pool;
    const lapseUrls = () => db.query("UPDATE paste_attachments SET urls_until = now() - interval '1 second'");
    const exists = async (id: string) => (await site.objects.head(objectKey(id))) !== undefined;

    // Deleted with its token, after a view handed out a URL: kept until that URL lapses.
    const deleted = await pasteWithFiles([{ bytes: bytesOf(10) }]);
    await rawJson(deleted.slug);
    expect(
      (await site.http.delete(`/api/paste/${deleted.slug}`).set('X-Delete-Token', deleted.deleteToken)).status,
    ).toBe(200);
    expect(await site.paste.attachments.removeDue()).toBe(0);
    expect(await exists(deleted.ids[0]!)).toBe(true);

    // Past its time limit.
    const expiring = await pasteWithFiles([{ bytes: bytesOf(10) }], { content: 'x', expiresIn: 3600 });
    await db.query("UPDATE pastes SET expires_at = now() - interval '1 second' WHERE slug = $1", [expiring.slug]);

    // Used up by its last view: kept 10 minutes after it.
    const used = await pasteWithFiles([{ bytes: bytesOf(10) }], { content: 'x', maxViews: 1 });
    expect((await rawJson(used.slug)).status).toBe(200);

    // A live paste's files stay.
    const live = await pasteWithFiles([{ bytes: bytesOf(10) }]);

    await lapseUrls();
    // The store is down: nothing removed, the rows kept for the next run.
    const down = createAttachmentService({
      db,
      store: new S3ObjectStore({
        bucket: 'down',
        endpoint: 'http://127.0.0.1:9',
        region: 'us-east-1',
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
        forcePathStyle: true,
      }),
      logger: { warn: () => {} } as never,
    });
    expect(await down.removeDue()).toBe(0);
    expect(await exists(deleted.ids[0]!)).toBe(true);

    // The used-up paste waits for 10 minutes after its last view.
    expect(await site.paste.attachments.removeDue()).toBe(2);
    expect(await exists(deleted.ids[0]!)).toBe(false);
    expect(await exists(expiring.ids[0]!)).toBe(false);
    expect(await exists(used.ids[0]!)).toBe(true);
    await db.query("UPDATE pastes SET last_viewed_at = now() - interval '10 minutes 1 second' WHERE slug = $1", [
      used.slug,
    ]);
    expect(await site.paste.attachments.removeDue()).toBe(1);
    expect(await exists(used.ids[0]!)).toBe(false);
    expect(await exists(live.ids[0]!)).toBe(true);
    const { rows } = await db.query('SELECT id FROM paste_attachments');
    expect(rows).toEqual([{ id: live.ids[0] }]);
  });

  it('the orphan sweep removes objects without a row and keeps the others', async () => {
    const kept = await pasteWithFiles([{ bytes: bytesOf(10) }]);
    const orphan = randomBytes(16).toString('hex');
    await site.objects.put(objectKey(orphan), Readable.from([Buffer.alloc(3)]), { size: 3 });
    expect(await site.paste.attachments.sweepOrphans()).toBe(1);
    expect(await site.objects.head(objectKey(orphan))).toBeUndefined();
    expect(await site.objects.head(objectKey(kept.ids[0]!))).toBeDefined();
  });

  it('statistics count the bytes of the files', async () => {
    const owner = await site.session(OWNER_ID);
    const before = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(before.body.storageUsed).toBe('0 B');
    await pasteWithFiles([{ bytes: bytesOf(2048) }, { bytes: bytesOf(1024) }], { content: 'ab' });
    const after = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(after.body.storageUsed).toBe('3.0 KB');
    // The owner's dashboard shows the same figure.
    const dashboard = await site.http.get('/admin').set('Cookie', owner.cookie);
    expect(
      /<span class="stat-value">([^<]+)<\/span><span class="stat-label">Storage<\/span>/.exec(dashboard.text)?.[1],
    ).toBe('3.0 KB');
  });
});
