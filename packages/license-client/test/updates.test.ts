import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../apps/license/test/helpers.js';
import { checkForUpdate, downloadArtifact } from '../src/index.js';

// checkForUpdate and downloadArtifact against the license service on a test database, its
// artifacts on a filesystem store in a temporary folder.

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
let t: TestApp;
let folder: string;
let publicKey: string;
let key: string;
const bytes = randomBytes(300_000);

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'client-updates-'));
  t = await buildTestApp({ env: { STORAGE_URL: pathToFileURL(path.join(folder, 'objects')).href } });
  const admin = await t.admin();
  const product = await t.createProduct();
  const created = await t.http
    .post(`/api/products/${product._id}/releases`)
    .set(admin.headers)
    .send({ version: '1.1.0' });
  const id = created.body.release._id as string;
  const added = await t.http
    .post(`/api/releases/${id}/artifacts`)
    .set(admin.headers)
    .send({ filename: 'app.tar.gz', platform: 'linux', arch: 'x86_64', size: bytes.length, sha256: sha256(bytes) });
  expect((await fetch(added.body.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes) })).status).toBe(200);
  await t.http.post(`/api/releases/${id}/artifacts/${added.body.artifact._id}/complete`).set(admin.headers).expect(200);
  await t.http.post(`/api/releases/${id}/publish`).set(admin.headers).expect(200);
  key = (await t.createLicense({ product: product._id })).key;
  publicKey = (await t.http.get('/api/license/public-key')).body.publicKey;
});
afterAll(async () => {
  await t?.close();
  rmSync(folder, { recursive: true, force: true });
});

const ask = (overrides: Partial<Parameters<typeof checkForUpdate>[0]> = {}) =>
  checkForUpdate({ baseUrl: t.baseUrl, key, currentVersion: '1.0.0', publicKey, clock: false, ...overrides });

describe('checkForUpdate and downloadArtifact', () => {
  it('verifies the signed answer and downloads the artifact, checking size and SHA-256', async () => {
    const checked = await ask({ platform: 'linux', arch: 'x86_64', fingerprint: 'pc-1' });
    expect(checked.ok).toBe(true);
    if (!checked.ok || !checked.upgrade) throw new Error('no upgrade');
    expect(checked.upgrade.version).toBe('1.1.0');
    const [artifact] = checked.upgrade.artifacts;
    const target = path.join(folder, 'app.tar.gz');
    const saved = await downloadArtifact(artifact!, target);
    expect(saved).toEqual({ ok: true, path: target, size: bytes.length, sha256: sha256(bytes) });
    expect(readFileSync(target).equals(bytes)).toBe(true);
    expect((await ask({ currentVersion: '1.1.0' })).ok && (await ask({ currentVersion: '1.1.0' }))).toMatchObject({
      upgrade: null,
    });
  });

  it('refuses bytes whose size or SHA-256 differ, keeping nothing', async () => {
    const checked = await ask();
    if (!checked.ok || !checked.upgrade) throw new Error('no upgrade');
    const [artifact] = checked.upgrade.artifacts;
    const target = path.join(folder, 'bad.tar.gz');
    expect(await downloadArtifact({ ...artifact!, sha256: sha256(Buffer.from('other')) }, target)).toMatchObject({
      ok: false,
      reason: 'sha256-mismatch',
    });
    expect(await downloadArtifact({ ...artifact!, size: bytes.length - 1 }, target)).toMatchObject({
      ok: false,
      reason: 'size-mismatch',
    });
    expect(await downloadArtifact({ ...artifact!, size: bytes.length + 1 }, target)).toMatchObject({
      ok: false,
      reason: 'size-mismatch',
    });
    expect(existsSync(target) || existsSync(`${target}.part`)).toBe(false);
  });

  it('refuses an answer to another key (a proxy), an unsigned one and a refusal', async () => {
    const other = (await t.createLicense()).key;
    const proxy: typeof fetch = (url, init) =>
      fetch(url, { ...init, body: (init?.body as string).replace(key, other) });
    expect(await ask({ fetch: proxy })).toMatchObject({ ok: false, reason: 'wrong-request' });
    const unsigned: typeof fetch = async (url, init) => {
      const res = await fetch(url, init);
      return new Response(await res.arrayBuffer(), { status: res.status });
    };
    expect(await ask({ fetch: unsigned })).toMatchObject({ ok: false, reason: 'missing-signature' });
    expect(await ask({ key: 'NOPE-NOPE' })).toMatchObject({
      ok: false,
      reason: 'refused',
      status: 400,
      error: 'License not found',
    });
  });
});
