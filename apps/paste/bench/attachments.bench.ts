// `npm run bench:attachments`: a large file (1 GiB; BENCH_ATTACHMENT_BYTES to change it) through
// each store, as the service's clients move it: a paste declares it, the bytes go by PUT to the
// presigned upload URL, the paste is completed, a counted view hands out the download URL and the
// bytes come back by GET. Beside each figure, a plain copy of the same bytes on the same store in
// the same run (the filesystem: a streamed file copy into and out of the store's folder; S3: the
// SDK's PutObject and GetObject straight to the server), and the service's peak RSS (VmHWM of its
// process) against its RSS before the transfers. The service runs in a child process of its own,
// so its memory is its own (decisions.md wave 4: RSS grows < 64 MB with 1 GiB files).
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const SIZE = Number(process.env.BENCH_ATTACHMENT_BYTES ?? 1024 ** 3);
const MiB = 1024 * 1024;

/** The child: the paste service as main.ts starts it, with attachments up to 5 GiB allowed. */
async function serve(): Promise<void> {
  const { getConfig } = await import('@app/config');
  const { startEmbeddedServer } = await import('@app/db/embedded');
  const { createLogger } = await import('@app/http/logger');
  const { databaseDirOf } = await import('../src/database-dir.js');
  const { startPasteService } = await import('../src/service.js');
  const config = getConfig();
  const logger = createLogger({ level: 'error', name: 'paste' });
  const embedded = startEmbeddedServer({ dataDir: databaseDirOf(config), warn: (message) => logger.warn(message) });
  const started = await startPasteService(config, { logger, embedded });
  await started.settings.update({
    maxAttachmentBytes: 5 * 1024 ** 3,
    apiRateLimit: 1_000_000,
    webRateLimit: 1_000_000,
  });
  process.send!({ ready: true });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = http.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Kilobytes of a /proc/<pid>/status field (VmRSS: now, VmHWM: the peak). */
const memory = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;

async function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = fork(import.meta.filename, ['--serve'], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      ...env,
      PASTE_PORT: String(port),
      PASTE_PUBLIC_URL: url,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
  return { child, url };
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** PUT a file to a URL with its exact length (the way the command line uploads). */
function putFile(url: string, file: string, size: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'PUT', headers: { 'Content-Length': String(size) } }, (response) => {
      response.resume();
      response.on('end', () =>
        response.statusCode === 200 ? resolve() : reject(new Error(`upload answered ${response.statusCode}`)),
      );
    });
    request.on('error', reject);
    pipeline(createReadStream(file, { highWaterMark: MiB }), request).catch(reject);
  });
}

/** GET a URL into a file, hashing what arrives. */
async function getFile(url: string, file: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`download answered ${response.status}`);
  const hash = createHash('sha256');
  await pipeline(
    Readable.fromWeb(response.body as never),
    async function* (source) {
      for await (const chunk of source) {
        hash.update(chunk as Buffer);
        yield chunk;
      }
    },
    createWriteStream(file),
  );
  return hash.digest('hex');
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const rate = (seconds: number) => SIZE / 1e6 / seconds;

async function writeInput(file: string): Promise<string> {
  const hash = createHash('sha256');
  const block = Buffer.alloc(MiB);
  for (let index = 0; index < block.length; index += 4) block.writeUInt32LE((index * 2654435761) >>> 0, index);
  const out = createWriteStream(file);
  for (let written = 0, n = 0; written < SIZE; n += 1) {
    const chunk = Buffer.from(block.subarray(0, Math.min(MiB, SIZE - written)));
    chunk.writeUInt32BE(n, 0);
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    written += chunk.length;
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return hash.digest('hex');
}

interface Row {
  store: string;
  upload: number;
  download: number;
  plainUp: number;
  plainDown: number;
  rssBefore: number;
  rssPeak: number;
}

async function throughService(url: string, pid: number, input: string, expected: string, work: string) {
  const post = await fetch(`${url}/api/paste`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ content: 'bench', attachments: [{ size: SIZE, name: 'big.bin' }] }),
  });
  if (!post.ok) throw new Error(`create answered ${post.status}: ${await post.text()}`);
  const created = (await post.json()) as {
    slug: string;
    deleteToken: string;
    attachments: Array<{ uploadUrl: string }>;
  };
  const rssBefore = memory(pid, 'VmRSS');
  const upload = await timed(() => putFile(created.attachments[0]!.uploadUrl, input, SIZE));
  const completed = await fetch(`${url}/api/paste/${created.slug}/complete`, {
    method: 'POST',
    headers: { 'X-Delete-Token': created.deleteToken },
  });
  if (!completed.ok) throw new Error(`complete answered ${completed.status}`);
  const view = (await (
    await fetch(`${url}/paste/${created.slug}/raw`, { headers: { Accept: 'application/json' } })
  ).json()) as { attachments: Array<{ url: string }> };
  const output = path.join(work, 'down.bin');
  let hash = '';
  const download = await timed(async () => {
    hash = await getFile(view.attachments[0]!.url, output);
  });
  if (hash !== expected) throw new Error('the download differs from the upload');
  rmSync(output);
  return { upload, download, rssBefore, rssPeak: memory(pid, 'VmHWM') };
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'bench-attachments-'));
  const rows: Row[] = [];
  try {
    const input = path.join(work, 'input.bin');
    console.log(`Writing ${SIZE} bytes of input…`);
    const expected = await writeInput(input);

    // The filesystem store: objects under the data folder, served by the service itself.
    {
      const dataDir = path.join(work, 'data-file');
      const { child, url } = await startChild({ DATA_DIR: dataDir, STORAGE_URL: '' });
      try {
        const measured = await throughService(url, child.pid!, input, expected, work);
        const target = path.join(dataDir, 'objects', 'plain-copy.bin');
        const plainUp = await timed(() =>
          pipeline(createReadStream(input, { highWaterMark: MiB }), createWriteStream(target)),
        );
        const back = path.join(work, 'plain-back.bin');
        const plainDown = await timed(() =>
          pipeline(createReadStream(target, { highWaterMark: MiB }), createWriteStream(back)),
        );
        if (statSync(back).size !== SIZE) throw new Error('plain copy lost bytes');
        rmSync(back);
        rows.push({ store: 'file', ...measured, plainUp, plainDown });
      } finally {
        await stopChild(child);
      }
    }

    // S3: s3rver (a real S3-protocol server) in a process of its own; the service only signs URLs.
    {
      const { startS3Server } = await import('@app/storage/testing');
      const { S3ObjectStore } = await import('@app/storage');
      const s3 = await startS3Server({ bucket: 'bench' });
      const { child, url } = await startChild({
        DATA_DIR: path.join(work, 'data-s3'),
        STORAGE_URL: 's3://bench',
        AWS_ENDPOINT_URL_S3: s3.endpoint,
        AWS_REGION: s3.region,
        AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
      });
      try {
        const measured = await throughService(url, child.pid!, input, expected, work);
        const store = new S3ObjectStore({ ...s3, forcePathStyle: true });
        const plainUp = await timed(() =>
          store.put('plain-copy.bin', createReadStream(input, { highWaterMark: MiB }), { size: SIZE }),
        );
        const back = path.join(work, 'plain-back.bin');
        const plainDown = await timed(async () => pipeline(await store.get('plain-copy.bin'), createWriteStream(back)));
        if (statSync(back).size !== SIZE) throw new Error('plain copy lost bytes');
        rmSync(back);
        rows.push({ store: 's3 (s3rver)', ...measured, plainUp, plainDown });
      } finally {
        await stopChild(child);
        await s3.close();
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  const mb = (bytes: number) => (bytes / MiB).toFixed(1);
  console.log(`\n${(SIZE / MiB).toFixed(0)} MiB per transfer\n`);
  console.log(
    '| store | upload MB/s | plain copy in MB/s | ratio | download MB/s | plain copy out MB/s | ratio | service RSS before → peak (MiB) | growth (MiB) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const up = rate(row.upload);
    const down = rate(row.download);
    const plainUp = rate(row.plainUp);
    const plainDown = rate(row.plainDown);
    console.log(
      `| ${row.store} | ${up.toFixed(0)} | ${plainUp.toFixed(0)} | ${(up / plainUp).toFixed(2)} | ${down.toFixed(0)} | ` +
        `${plainDown.toFixed(0)} | ${(down / plainDown).toFixed(2)} | ${mb(row.rssBefore)} → ${mb(row.rssPeak)} | ${mb(row.rssPeak - row.rssBefore)} |`,
    );
  }
  const worst = Math.max(...rows.map((row) => row.rssPeak - row.rssBefore));
  if (worst >= 64 * MiB) {
    console.error(`Service RSS grew ${mb(worst)} MiB: the limit is 64`);
    process.exitCode = 1;
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
