import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { mountRoutes, openApiRoutes } from '../src/index.js';

// /openapi.json is prepared once (serialised, compressed, hashed) and revalidated by ETag; the
// /docs page carries a first view of every operation, escaped, before Swagger UI has run.

const document = {
  openapi: '3.1.0',
  info: { title: 'Demo <service>', version: '1.0.0' },
  paths: {
    '/api/things': { get: { summary: 'List <things>', tags: ['things'], operationId: 'getApiThings' } },
    '/api/things/{id}': { delete: { summary: 'Delete a thing', tags: ['things'], operationId: 'deleteApiThingsId' } },
  },
};
let built = 0;
const docs = openApiRoutes(() => {
  built += 1;
  return document;
});
const app = express().use(mountRoutes(docs.routes)).use(docs.assets);
/** The bytes as sent (supertest would decompress them). */
async function rawGet(path: string, encoding: string) {
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get({ port, path, headers: { 'Accept-Encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('GET /openapi.json', () => {
  it('answers brotli, gzip or plain by Accept-Encoding, the same document, with an ETag and no-cache', async () => {
    const answers = await Promise.all(['br', 'gzip', 'identity'].map((encoding) => rawGet('/openapi.json', encoding)));
    const [br, gzip, plain] = answers as [(typeof answers)[0], (typeof answers)[0], (typeof answers)[0]];
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(document);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.body).toString('utf8'))).toEqual(document);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.body.toString('utf8'))).toEqual(document);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(res.headers.etag).toBe(plain.headers.etag);
    }
    expect(built).toBe(1);
  });

  it('answers 304 without a body when the client has the current copy', async () => {
    const { headers } = await request(app).get('/openapi.json');
    const again = await request(app).get('/openapi.json').set('If-None-Match', headers.etag!);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await request(app).get('/openapi.json').set('If-None-Match', '"stale"')).status).toBe(200);
  });
});

describe('GET /docs/', () => {
  it('lists every operation by tag in the page itself, escaped, with the scripts deferred', async () => {
    const page = await request(app).get('/docs/').expect(200);
    expect(page.text).toContain('<span class="opblock-summary-method">GET</span>');
    expect(page.text).toContain('<span>/api/things/{id}</span>');
    expect(page.text).toContain('List &lt;things&gt;');
    expect(page.text).toContain('Demo &lt;service&gt;');
    expect(page.text).not.toContain('<things>');
    for (const script of page.text.match(/<script[^>]*>/g) ?? []) expect(script).toContain(' defer');
    expect((await request(app).get('/docs/swagger-ui-init.js').expect(200)).text).toContain("url: '/openapi.json'");
    await request(app).get('/docs/reference.css').expect(200).expect('content-type', /css/);
    await request(app).get('/docs/swagger-ui-bundle.js').expect(200);
  });
});

describe("Swagger UI's files are served compressed", () => {
  it.each([
    { file: 'swagger-ui-bundle.js', type: /javascript/, larger: 1_000_000 },
    { file: 'swagger-ui-standalone-preset.js', type: /javascript/, larger: 100_000 },
    { file: 'swagger-ui.css', type: /css/, larger: 100_000 },
  ])(
    '$file: brotli and gzip to a third of its size or less, plain to whoever takes no encoding',
    async ({ file, type, larger }) => {
      const plain = await rawGet(`/docs/${file}`, 'identity');
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(larger);
      const br = await rawGet(`/docs/${file}`, 'gzip, deflate, br');
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['content-type']).toMatch(type);
      expect(br.headers.vary).toMatch(/Accept-Encoding/);
      expect(br.body.length).toBeLessThan(plain.body.length / 3);
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      const gz = await rawGet(`/docs/${file}`, 'gzip');
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.body.length).toBeLessThan(plain.body.length / 3);
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
      // Revalidated by its ETag.
      const again = await request(app).get(`/docs/${file}`).set('If-None-Match', String(br.headers.etag));
      expect(again.status).toBe(304);
    },
  );

  it('the other files of Swagger UI are still served', async () => {
    await request(app).get('/docs/favicon-32x32.png').expect(200).expect('content-type', /png/);
  });
});
