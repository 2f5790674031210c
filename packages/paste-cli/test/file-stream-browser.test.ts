import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForTests } from '../../http/src/testing/prerequisites.js';
import { fileVectors } from './file-vectors.js';

// The encrypted file format in Debian's chromium: the very file the paste page will load
// (src/file-stream.js, importing src/envelope.js) gives the vectors Node gives
// (file-stream.test.ts), and decrypts them again, streaming.
const executablePath = chromiumForTests('the file format in a browser');
const source = path.resolve(import.meta.dirname, '../src');
const vectors = fileVectors();

describe.skipIf(!executablePath)('the encrypted file format in a browser', { timeout: 60_000 }, () => {
  let server: Server;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    // Only the two module files, and a blank page on 127.0.0.1 (a secure context, so WebCrypto works).
    server = createServer((req, res) => {
      const file = { '/file-stream.js': 'file-stream.js', '/envelope.js': 'envelope.js' }[req.url ?? ''];
      if (file) res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(readFileSync(path.join(source, file)));
      else res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>format</title>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("the page's copy of the format gives the vectors exactly, as Node does, and opens them again", async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    // As text: the test runner would rewrite an import() written in the function itself.
    const results = await page.evaluate<Array<{ length: number; sha256: string; opened: boolean }>>(`(async () => {
      const format = await import('/file-stream.js');
      const envelope = await import('/envelope.js');
      const pattern = (length) => { const b = new Uint8Array(length); for (let i = 0; i < length; i++) b[i] = i % 251; return b; };
      const run = async (transform, bytes, piece) => {
        const input = new ReadableStream({ start(c) { for (let o = 0; o < bytes.length; o += piece) c.enqueue(bytes.slice(o, o + piece)); c.close(); } });
        const parts = []; let length = 0;
        const reader = input.pipeThrough(transform).getReader();
        for (let next = await reader.read(); !next.done; next = await reader.read()) { parts.push(next.value); length += next.value.length; }
        const out = new Uint8Array(length); let at = 0; for (const p of parts) { out.set(p, at); at += p.length; }
        return out;
      };
      return Promise.all(${JSON.stringify(vectors)}.map(async (v) => {
        const material = await format.fileKeyMaterial(v.key, { password: v.password, salt: v.envelopeSalt });
        const plain = pattern(v.plaintextLength);
        const sealed = await run(format.encryptFileStream(material, { salt: envelope.fromBase64Url(v.fileSalt) }), plain, 10000);
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', sealed));
        const opened = await run(format.decryptFileStream(material), sealed, 7777);
        return {
          length: sealed.length,
          sha256: envelope.toBase64Url(digest),
          opened: opened.length === plain.length && opened.every((byte, i) => byte === plain[i]),
        };
      }));
    })()`);
    results.forEach((result, index) => {
      const vector = vectors[index]!;
      expect(result).toEqual({ length: vector.ciphertextLength, sha256: vector.ciphertextSha256, opened: true });
    });
    await page.close();
  });
});
