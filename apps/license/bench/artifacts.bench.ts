// A 500 MB release artifact through the license service and the client package: uploaded to the
// artifact's URL, checked (size and SHA-256 read back), published, offered by checkForUpdate and
// downloaded by downloadArtifact. The service runs in a child process on a test database with the
// filesystem store, so its peak RSS (VmHWM) is its own. `npm run bench:artifacts` (MB=500 by default).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { checkForUpdate, downloadArtifact } from '../../../packages/license-client/src/index.js';

const MB = Number(process.env.MB ?? 500);

async function serve(folder: string) {
  const { buildTestApp } = await import('../test/helpers.js');
  const t = await buildTestApp({ env: { STORAGE_URL: pathToFileURL(path.join(folder, 'objects')).href } });
  const admin = await t.admin();
  const product = await t.createProduct();
  const license = await t.createLicense({ product: product._id });
  const publicKey = (await t.http.get('/api/license/public-key')).body.publicKey as string;
  console.log(
    JSON.stringify({ baseUrl: t.baseUrl, headers: admin.headers, productId: product._id, key: license.key, publicKey }),
  );
  process.stdin.resume();
  process.stdin.on('end', () => void t.close().then(() => process.exit(0)));
}

const memoryOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
};

async function main() {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'artifacts-bench-'));
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'serve', folder], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    // The file, written in 1 MiB pieces while hashed (never whole in memory).
    const file = path.join(folder, 'app.bin');
    const hash = createHash('sha256');
    const out = createWriteStream(file);
    for (let i = 0; i < MB; i += 1) {
      const piece = randomBytes(1024 * 1024);
      hash.update(piece);
      if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    await new Promise<void>((resolve) => out.end(() => resolve()));
    const size = MB * 1024 * 1024;
    const sha256 = hash.digest('hex');

    const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    const service = JSON.parse(line) as {
      baseUrl: string;
      headers: Record<string, string>;
      productId: string;
      key: string;
      publicKey: string;
    };
    const api = async (method: string, url: string, body?: object) => {
      const res = await fetch(`${service.baseUrl}${url}`, {
        method,
        headers: { ...service.headers, 'Content-Type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { release: { _id: string }; artifact: { _id: string }; uploadUrl: string };
    };
    const before = memoryOf(child.pid!);
    const release = (await api('POST', `/api/products/${service.productId}/releases`, { version: '2.0.0' })).release;
    const added = await api('POST', `/api/releases/${release._id}/artifacts`, {
      filename: 'app.bin',
      platform: 'linux',
      arch: 'x86_64',
      size,
      sha256,
    });
    let started = performance.now();
    const put = await fetch(added.uploadUrl, {
      method: 'PUT',
      headers: { 'Content-Length': String(size) },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    if (!put.ok) throw new Error(`upload: ${put.status}`);
    const uploadMs = performance.now() - started;
    started = performance.now();
    await api('POST', `/api/releases/${release._id}/artifacts/${added.artifact._id}/complete`);
    const completeMs = performance.now() - started;
    await api('POST', `/api/releases/${release._id}/publish`);

    started = performance.now();
    const checked = await checkForUpdate({
      baseUrl: service.baseUrl,
      key: service.key,
      currentVersion: '1.0.0',
      publicKey: service.publicKey,
      clock: false,
    });
    if (!checked.ok || !checked.upgrade) throw new Error(`checkForUpdate: ${JSON.stringify(checked)}`);
    const saved = await downloadArtifact(checked.upgrade.artifacts[0]!, path.join(folder, 'downloaded.bin'));
    if (!saved.ok) throw new Error(`download: ${saved.reason}`);
    const downloadMs = performance.now() - started;
    const after = memoryOf(child.pid!);
    const rate = (ms: number) => `${(size / 1024 / 1024 / (ms / 1000)).toFixed(0)} MB/s`;
    console.log(`artifact ${MB} MiB, SHA-256 ${sha256.slice(0, 16)}…`);
    console.log(`upload (PUT to the service's file store): ${(uploadMs / 1000).toFixed(1)} s, ${rate(uploadMs)}`);
    console.log(`complete (size and SHA-256 read back): ${(completeMs / 1000).toFixed(1)} s, ${rate(completeMs)}`);
    console.log(
      `checkForUpdate + downloadArtifact (verified): ${(downloadMs / 1000).toFixed(1)} s, ${rate(downloadMs)}`,
    );
    console.log(
      `service RSS: ${before.rss.toFixed(0)} MB before, peak ${after.peak.toFixed(0)} MB (VmHWM, start-up included)`,
    );
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3]!);
else await main();
