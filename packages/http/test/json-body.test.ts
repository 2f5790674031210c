import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorHandler, createLogger, jsonBody } from '../src/index.js';

// The same app behind body-parser alone and behind jsonBody: every answer must be the same.
const seen: unknown[] = [];
function buildApp(parser: express.RequestHandler) {
  const app = express();
  app.post('/echo', parser, (req, res) => {
    seen.push(req.body);
    res.json({ body: req.body ?? null });
  });
  app.use(createErrorHandler({ successFlag: false, logger: createLogger({ level: 'silent' }) }));
  return app;
}
const quick = buildApp(jsonBody({ limit: '1kb' }));
const general = buildApp(express.json({ limit: '1kb' }));

const cases: Array<{ name: string; type?: string; body: string | Buffer; headers?: Record<string, string> }> = [
  { name: 'an object', type: 'application/json', body: '{"key":"ABCD","n":[1,2]}' },
  { name: 'an array', type: 'application/json', body: '[1,"two",{"three":3}]' },
  { name: 'a charset in any case, without a space', type: 'application/json;charset=UTF-8', body: '{"é":"ü"}' },
  {
    name: 'a byte-order mark',
    type: 'application/json; charset=utf-8',
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]),
  },
  { name: 'an empty body', type: 'application/json', body: '' },
  { name: 'malformed JSON', type: 'application/json', body: '{"key": ' },
  { name: 'a string', type: 'application/json', body: '"just text"' },
  { name: 'null', type: 'application/json', body: 'null' },
  { name: 'a body over the limit', type: 'application/json', body: JSON.stringify({ text: 'x'.repeat(2000) }) },
  {
    name: 'a gzip body',
    type: 'application/json',
    body: gzipSync('{"zipped":true}'),
    headers: { 'Content-Encoding': 'gzip' },
  },
  { name: 'another charset', type: 'application/json; charset=iso-8859-1', body: '{"a":1}' },
  { name: 'another type', type: 'text/plain', body: '{"a":1}' },
];

describe('jsonBody', () => {
  it.each(cases)('answers $name as express.json() does', async ({ type, body, headers }) => {
    const send = (app: express.Express) => {
      let call = request(app).post('/echo');
      if (type) call = call.set('Content-Type', type);
      for (const [name, value] of Object.entries(headers ?? {})) call = call.set(name, value);
      return call.send(body);
    };
    const [fromQuick, fromGeneral] = [await send(quick), await send(general)];
    expect({ status: fromQuick.status, body: fromQuick.body }).toEqual({
      status: fromGeneral.status,
      body: fromGeneral.body,
    });
  });

  it('parses the common case itself, and answers 400, 413 and 415 as the error handler words them', async () => {
    expect((await request(quick).post('/echo').set('Content-Type', 'application/json').send('{"a":1}')).body).toEqual({
      body: { a: 1 },
    });
    expect((await request(quick).post('/echo').set('Content-Type', 'application/json').send('{"a":')).body).toEqual({
      error: 'Invalid JSON body',
    });
    expect((await request(quick).post('/echo').set('Content-Type', 'application/json').send('"x"')).status).toBe(400);
    expect(
      (
        await request(quick)
          .post('/echo')
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ t: 'x'.repeat(2000) }))
      ).status,
    ).toBe(413);
    expect(
      (await request(quick).post('/echo').set('Content-Type', 'application/json; charset=iso-8859-1').send('{}'))
        .status,
    ).toBe(415);
  });

  it("keeps the request's async context for what comes after it (AsyncLocalStorage)", async () => {
    const context = new AsyncLocalStorage<string>();
    const app = express();
    app.post('/context', jsonBody({ limit: '1kb' }), (_req, res) => {
      res.json({ context: context.getStore() ?? null });
    });
    const server = http.createServer((req, res) => context.run('request-7', () => app(req, res)));
    const res = await request(server).post('/context').set('Content-Type', 'application/json').send('{"a":1}');
    expect(res.body).toEqual({ context: 'request-7' });
  });

  describe('a client that leaves mid-body', () => {
    let server: http.Server;
    let port: number;
    beforeAll(async () => {
      server = http.createServer(quick);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('never reaches the handler, and the server goes on answering', async () => {
      const before = seen.length;
      await new Promise<void>((resolve) => {
        const partial = http.request({
          port,
          method: 'POST',
          path: '/echo',
          headers: { 'Content-Type': 'application/json', 'Content-Length': '100' },
        });
        partial.on('error', () => resolve());
        partial.write('{"key":"half');
        setTimeout(() => {
          partial.destroy();
          resolve();
        }, 100);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen.length).toBe(before);
      const res = await fetch(`http://127.0.0.1:${port}/echo`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"after":1}',
      });
      expect(await res.json()).toEqual({ body: { after: 1 } });
    });
  });
});
