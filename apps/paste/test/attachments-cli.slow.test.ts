import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { startTestSite, type TestSite } from './helpers.js';

// A large file through the command line (decisions.md wave 4: 1 GiB files with bounded memory):
// `paste put --attach` encrypts it in chunks and streams it to the filesystem store's upload URL,
// `paste get --out` streams it back through decryption; the output is byte for byte the input.
// ATTACHMENT_TEST_BYTES sets the size: 256 MiB by default, to stay inside CI's time (a 1 GiB
// run, ATTACHMENT_TEST_BYTES=1073741824, takes about 90 s on a shared 2-core machine).

const SIZE = Number(process.env.ATTACHMENT_TEST_BYTES ?? 256 * 1024 ** 2);
const root = path.resolve(import.meta.dirname, '../../..');

let site: TestSite;
let folder: string;
let compiled: string;
beforeAll(async () => {
  site = await startTestSite(undefined);
  await site.settings.update({ maxAttachmentBytes: 5 * 1024 ** 3 });
  folder = mkdtempSync(path.join(os.tmpdir(), 'paste-big-'));
  compiled = path.join(folder, 'paste.mjs');
  await build({
    entryPoints: [path.join(root, 'packages/paste-cli/src/paste.ts')],
    outfile: compiled,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
});
afterAll(async () => {
  await site?.close();
  rmSync(folder, { recursive: true, force: true });
});

function paste(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [compiled, ...args],
      { env: { ...process.env, PASTE_URL: site.baseUrl, PASTE_API_KEY: '' }, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end();
  });
}

/** Writes `size` bytes: 1 MiB of random bytes, each repeat changed by its index, so no two MiB are alike. */
async function writeInput(file: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  const block = randomBytes(1024 * 1024);
  for (let written = 0, index = 0; written < size; index += 1) {
    const chunk = Buffer.from(block.subarray(0, Math.min(block.length, size - written)));
    chunk.writeUInt32BE(index, 0);
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    written += chunk.length;
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return hash.digest('hex');
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe(`a ${SIZE} byte file through the command line (${testDatabaseBackend()})`, () => {
  it('put --attach, get --out: byte for byte', { timeout: 300_000 }, async () => {
    const input = path.join(folder, 'big.bin');
    const expected = await writeInput(input, SIZE);
    const started = Date.now();
    const put = await paste(['put', '--attach', input]);
    expect(put.code, put.stderr).toBe(0);
    const uploaded = Date.now();
    const out = path.join(folder, 'out');
    mkdirSync(out);
    const get = await paste(['get', put.stdout.trim(), '--out', out]);
    expect(get.code, get.stderr).toBe(0);
    const downloaded = Date.now();
    const output = path.join(out, 'big.bin');
    expect(statSync(output).size).toBe(SIZE);
    expect(await sha256(output)).toBe(expected);
    const mb = SIZE / 1e6;
    console.log(
      `CLI round trip of ${SIZE} bytes: up ${(mb / ((uploaded - started) / 1000)).toFixed(0)} MB/s, ` +
        `down ${(mb / ((downloaded - uploaded) / 1000)).toFixed(0)} MB/s, ${((downloaded - started) / 1000).toFixed(1)} s`,
    );
  });
});
