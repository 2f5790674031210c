import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FileObjectStore,
  fileStoreHandler,
  InvalidKeyError,
  ObjectNotFoundError,
  S3ObjectStore,
  SizeMismatchError,
  type ObjectInfo,
  type ObjectStore,
} from '../src/index.js';
import { startS3Server } from '../src/testing.js';

// One contract, both stores: the filesystem store behind its own HTTP handler, and the S3 store
// against s3rver, a real S3-protocol server on loopback. Clients use plain fetch, as browsers
// and the command line will.

interface Subject {
  store: ObjectStore;
  /** The same objects, signing with a clock 11 minutes behind: every URL it makes has lapsed. */
  lapsed: ObjectStore;
  /** A store whose server checks every signature (for S3, the s3rver fork that verifies SigV4). */
  strict: ObjectStore;
  close(): Promise<void>;
}

const SECRET = 'test-signing-secret';
const elevenMinutesAgo = () => new Date(Date.now() - 11 * 60_000);

async function fileSubject(): Promise<Subject> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'file-store-'));
  const app = express();
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/objects`;
  const store = new FileObjectStore({ root, publicUrl, signingSecret: SECRET });
  app.use('/objects', fileStoreHandler(store));
  return {
    store,
    lapsed: new FileObjectStore({ root, publicUrl, signingSecret: SECRET, now: elevenMinutesAgo }),
    strict: store,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function s3Subject(): Promise<Subject> {
  const [s3, checking] = await Promise.all([startS3Server(), startS3Server({ checksSignatures: true })]);
  const options = { ...s3, forcePathStyle: true };
  return {
    store: new S3ObjectStore(options),
    lapsed: new S3ObjectStore({ ...options, now: elevenMinutesAgo }),
    strict: new S3ObjectStore({ ...checking, forcePathStyle: true }),
    close: async () => {
      await Promise.all([s3.close(), checking.close()]);
    },
  };
}

async function collect(iterable: AsyncIterable<ObjectInfo>): Promise<ObjectInfo[]> {
  const found: ObjectInfo[] = [];
  for await (const info of iterable) found.push(info);
  return found.sort((a, b) => a.key.localeCompare(b.key));
}

async function readAll(stream: Readable): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of stream) pieces.push(piece as Buffer);
  return Buffer.concat(pieces);
}

/** V8's collector, asked for by hand (the flag is set at run time, for this file alone). */
function garbageCollector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

let unique = 0;
const keyFor = (name: string) => `tests/${process.pid}-${(unique += 1)}/${name}`;

describe.each([
  ['filesystem', fileSubject],
  ['S3 (s3rver)', s3Subject],
])('the %s store', (_name, start) => {
  let subject: Subject;
  let store: ObjectStore;
  beforeAll(async () => {
    subject = await start();
    store = subject.store;
  });
  afterAll(() => subject?.close());

  it('takes an upload by its presigned URL with plain fetch, and hands it back by a download URL', async () => {
    const key = keyFor('report.bin');
    const bytes = randomBytes(200_000);
    const upload = await store.uploadUrl(key, { size: bytes.length });
    expect(upload.method).toBe('PUT');
    expect(upload.expiresAt.getTime() - Date.now()).toBeGreaterThan(590_000);
    expect(upload.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(600_000);
    const put = await fetch(upload.url, { method: 'PUT', body: bytes, headers: upload.headers });
    expect(put.status).toBe(200);

    expect(await store.head(key)).toMatchObject({ key, size: bytes.length });
    const download = await store.downloadUrl(key, { fileName: 'Quarterly report (final).bin' });
    const got = await fetch(download.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-length')).toBe(String(bytes.length));
    expect(got.headers.get('content-disposition')).toBe('attachment; filename="Quarterly report (final).bin"');
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);

    const part = await fetch(download.url, { headers: { Range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
  });

  it('names a download with any characters through Content-Disposition, and says attachment without a name', async () => {
    const key = keyFor('named');
    await store.put(key, Readable.from([Buffer.from('x')]), { size: 1 });
    const named = await fetch((await store.downloadUrl(key, { fileName: 'Résumé 東京 "2026".txt' })).url);
    expect(named.headers.get('content-disposition')).toBe(
      'attachment; filename="R?sum? ?? \\"2026\\".txt"; filename*=UTF-8\'\'R%C3%A9sum%C3%A9%20%E6%9D%B1%E4%BA%AC%20%222026%22.txt',
    );
    const unnamed = await fetch((await store.downloadUrl(key)).url);
    expect(unnamed.headers.get('content-disposition')).toBe('attachment');
    expect(await unnamed.text()).toBe('x');
  });

  it('refuses lapsed URLs with 403, for uploads and downloads alike', async () => {
    const key = keyFor('kept');
    await store.put(key, Readable.from([Buffer.from('original')]), { size: 8 });
    const lateUpload = await subject.lapsed.uploadUrl(key, { size: 8 });
    expect(lateUpload.expiresAt.getTime()).toBeLessThan(Date.now());
    const put = await fetch(lateUpload.url, { method: 'PUT', body: 'replaced' });
    expect(put.status).toBe(403);
    const get = await fetch((await subject.lapsed.downloadUrl(key)).url);
    expect(get.status).toBe(403);
    expect(await readAll(await store.get(key))).toEqual(Buffer.from('original'));
  });

  it('refuses an altered URL with 403: another key, or a download URL used to upload', async () => {
    const store = subject.strict;
    const key = keyFor('mine');
    await store.put(key, Readable.from([Buffer.from('mine')]), { size: 4 });
    const download = await store.downloadUrl(key);
    expect((await fetch(download.url.replace('/mine?', '/theirs?'))).status).toBe(403);
    expect((await fetch(download.url, { method: 'PUT', body: 'evil' })).status).toBe(403);
    expect((await readAll(await store.get(key))).toString()).toBe('mine');
  });

  it('refuses an upload larger or smaller than the size its URL was made for, and keeps nothing', async () => {
    const store = subject.strict;
    const key = keyFor('sized');
    const upload = await store.uploadUrl(key, { size: 10 });
    const larger = await fetch(upload.url, { method: 'PUT', body: Buffer.alloc(11) });
    expect(larger.status).toBeGreaterThanOrEqual(400);
    expect(larger.status).toBeLessThan(500);
    const smaller = await fetch(upload.url, { method: 'PUT', body: Buffer.alloc(9) });
    expect(smaller.status).toBeGreaterThanOrEqual(400);
    expect(smaller.status).toBeLessThan(500);
    expect(await store.head(key)).toBeUndefined();
    expect((await fetch(upload.url, { method: 'PUT', body: Buffer.alloc(10) })).status).toBe(200);
    expect(await store.head(key)).toMatchObject({ size: 10 });
  });

  it('refuses a put whose body is not its declared size, and keeps nothing', async () => {
    const key = keyFor('put-sized');
    await expect(store.put(key, Readable.from([Buffer.alloc(11)]), { size: 10 })).rejects.toBeInstanceOf(
      SizeMismatchError,
    );
    await expect(store.put(key, Readable.from([Buffer.alloc(9)]), { size: 10 })).rejects.toBeInstanceOf(
      SizeMismatchError,
    );
    expect(await store.head(key)).toBeUndefined();
  });

  it('deletes an object (again without complaint), after which its download URL finds nothing', async () => {
    const key = keyFor('gone');
    await store.put(key, Readable.from([Buffer.from('bye')]), { size: 3 });
    const download = await store.downloadUrl(key);
    await store.delete(key);
    expect(await store.head(key)).toBeUndefined();
    expect((await fetch(download.url)).status).toBe(404);
    await expect(store.get(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
    await store.delete(key);
  });

  it('lists the objects under a prefix with their sizes and times of change', async () => {
    const base = keyFor('listed');
    const before = Date.now() - 2000;
    for (const [name, size] of [
      ['a/one', 1],
      ['a/two', 2],
      ['ab', 3],
      ['b/three', 4],
    ] as const) {
      await store.put(`${base}/${name}`, Readable.from([Buffer.alloc(size)]), { size });
    }
    const underA = await collect(store.list(`${base}/a/`));
    expect(underA.map(({ key, size }) => ({ key, size }))).toEqual([
      { key: `${base}/a/one`, size: 1 },
      { key: `${base}/a/two`, size: 2 },
    ]);
    expect((await collect(store.list(`${base}/a`))).map(({ key }) => key)).toEqual([
      `${base}/a/one`,
      `${base}/a/two`,
      `${base}/ab`,
    ]);
    const all = await collect(store.list(`${base}/`));
    expect(all).toHaveLength(4);
    for (const info of all) {
      expect(info.lastModified.getTime()).toBeGreaterThan(before);
      expect(info.lastModified.getTime()).toBeLessThan(Date.now() + 2000);
    }
    expect(await collect(store.list(`${base}/nothing/`))).toEqual([]);
    await store.delete(`${base}/a/one`);
    expect((await collect(store.list(`${base}/`))).map(({ key }) => key)).not.toContain(`${base}/a/one`);
  });

  it('reads a range of an object through get', async () => {
    const key = keyFor('ranged');
    await store.put(key, Readable.from([Buffer.from('0123456789')]), { size: 10 });
    expect((await readAll(await store.get(key, { range: { start: 3, end: 5 } }))).toString()).toBe('345');
    expect((await readAll(await store.get(key, { range: { start: 7 } }))).toString()).toBe('789');
  });

  it('refuses keys that could leave their folder or differ between stores', async () => {
    for (const key of ['../escape', '/absolute', 'a//b', '.hidden', 'a/../b', 'a/./b', '', 'sp ace', 'a\\b']) {
      await expect(store.uploadUrl(key, { size: 1 })).rejects.toBeInstanceOf(InvalidKeyError);
      await expect(store.head(key)).rejects.toBeInstanceOf(InvalidKeyError);
    }
  });

  it('streams a 64 MB object through put and get while its own memory grows far less than that', async () => {
    const key = keyFor('large');
    const size = 64 * 1024 * 1024;
    const piece = 64 * 1024;
    const written = createHash('sha256');
    // Every 8 MiB the garbage is collected before RSS is read: what is left is what the stores
    // hold, not what V8 has yet to free (without it, fast transfers show up to 32 MiB of garbage).
    const collectGarbage = garbageCollector();
    collectGarbage();
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    let pieces = 0;
    const sample = () => {
      pieces += 1;
      if (pieces % 128 === 0) collectGarbage();
      peak = Math.max(peak, process.memoryUsage.rss());
    };
    function* generate() {
      for (let offset = 0; offset < size; offset += piece) {
        const bytes = Buffer.alloc(piece, offset / piece);
        bytes.writeUInt32BE(offset, 0);
        written.update(bytes);
        sample();
        yield bytes;
      }
    }
    await store.put(key, Readable.from(generate()), { size });
    expect(await store.head(key)).toMatchObject({ size });

    const read = createHash('sha256');
    let count = 0;
    for await (const bytes of await store.get(key)) {
      read.update(bytes as Buffer);
      count += (bytes as Buffer).length;
      sample();
    }
    expect(count).toBe(size);
    expect(read.digest('hex')).toBe(written.digest('hex'));
    const growth = peak - baseline;
    console.log(`${_name}: 64 MiB through put and get, RSS grew ${(growth / 1024 / 1024).toFixed(1)} MiB`);
    // Half the object: a store that held the whole file would grow by 64 MiB or more. RSS is read in
    // a test worker shared with other files (CI saw 24 MiB there under load, 2-11 MiB alone).
    expect(growth).toBeLessThan(size / 2);
    await store.delete(key);
  });
});

describe("the filesystem store's handler", () => {
  let subject: Subject;
  let base: string;
  beforeAll(async () => {
    subject = await fileSubject();
    const probe = await subject.store.downloadUrl('probe');
    base = probe.url.slice(0, probe.url.indexOf('/probe'));
  });
  afterAll(() => subject?.close());

  it('says why it refuses: an unsigned, lapsed or altered link', async () => {
    await subject.store.put('doc', Readable.from([Buffer.from('text')]), { size: 4 });
    const unsigned = await fetch(`${base}/doc`);
    expect(unsigned.status).toBe(403);
    expect(await unsigned.json()).toEqual({ success: false, error: 'Invalid or altered link' });
    const lapsed = await fetch((await subject.lapsed.downloadUrl('doc')).url);
    expect(lapsed.status).toBe(403);
    expect(await lapsed.json()).toEqual({ success: false, error: 'This link has expired' });
    const renamed = (await subject.store.downloadUrl('doc', { fileName: 'a.txt' })).url.replace('a.txt', 'b.html');
    expect(await (await fetch(renamed)).json()).toEqual({ success: false, error: 'Invalid or altered link' });
  });

  it('never serves a path outside its folder, however the key is spelled', async () => {
    for (const spelled of ['../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', '%2e%2e/%2e%2e/etc/passwd', '.incoming/x']) {
      const answer = await fetch(`${base}/${spelled}?expires=9999999999&signature=x`);
      expect([403, 404]).toContain(answer.status);
      expect(await answer.text()).not.toContain('root:');
    }
  });

  it('answers a download as a file, never as a page of the site', async () => {
    await subject.store.put('page.html', Readable.from([Buffer.from('<script>alert(1)</script>')]), { size: 25 });
    const answer = await fetch((await subject.store.downloadUrl('page.html')).url);
    expect(answer.headers.get('content-type')).toBe('application/octet-stream');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('cuts off a streamed upload (no Content-Length) at the first byte over its size', async () => {
    const upload = await subject.store.uploadUrl('streamed', { size: 100_000 });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 4; index += 1) controller.enqueue(new Uint8Array(50_000));
        controller.close();
      },
    });
    const answer = await fetch(upload.url, { method: 'PUT', body, duplex: 'half' } as RequestInit).catch(
      (error: Error) => error,
    );
    // The refusal is answered while the client may still be sending: it sees 413 or a closed connection.
    if (answer instanceof Response) {
      expect(answer.status).toBe(413);
      expect(await answer.json()).toEqual({ success: false, error: 'Upload larger than its declared size' });
    }
    expect(await subject.store.head('streamed')).toBeUndefined();
    expect(await collect(subject.store.list(''))).not.toContainEqual(expect.objectContaining({ key: 'streamed' }));
  });
});
