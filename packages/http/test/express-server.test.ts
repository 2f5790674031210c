import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { createExpressServer } from '../src/index.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function listening(app: express.Express): Promise<{ server: Server; url: string }> {
  server = createExpressServer(app, { headersTimeout: 5_000, requestTimeout: 10_000 });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('createExpressServer', () => {
  it("builds each request and response on the app's prototypes, before Express sees them", async () => {
    const app = express();
    app.get('/', (_req, res) => {
      res.json({ ok: true });
    });
    const { server, url } = await listening(app);
    const seen: Array<{ request: boolean; response: boolean; node: boolean }> = [];
    // Runs before Express's handler: what Node built, not what Express made of it.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.push({
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
        node: req instanceof http.IncomingMessage && res instanceof http.ServerResponse,
      });
    });

    await request(url).get('/').expect(200, { ok: true });
    await request(url).get('/').expect(200, { ok: true });

    expect(seen).toEqual([
      { request: true, response: true, node: true },
      { request: true, response: true, node: true },
    ]);
  });

  it('serves as Express does: helpers, bodies, params, headers, errors and the server options', async () => {
    const app = express();
    app.disable('x-powered-by');
    app.use(express.json());
    app.post('/echo/:name', (req, res) => {
      res
        .status(201)
        .set('X-Echo', req.get('x-sent') ?? '')
        .json({ name: req.params.name, body: req.body as unknown, query: req.query.q, secure: req.secure });
    });
    app.get('/page', (_req, res) => {
      res.type('html').send('<p>page</p>');
    });
    app.get('/fails', () => {
      throw new Error('broken');
    });
    app.use((error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
      if (res.headersSent) return next(error);
      res.status(500).json({ error: 'handled' });
    });
    const { server, url } = await listening(app);

    const echoed = await request(url)
      .post('/echo/ada?q=1')
      .set('X-Sent', 'hello')
      .send({ a: [1, 2] })
      .expect(201);
    expect(echoed.body).toEqual({ name: 'ada', body: { a: [1, 2] }, query: '1', secure: false });
    expect(echoed.headers['x-echo']).toBe('hello');
    expect(echoed.headers['x-powered-by']).toBeUndefined();
    const page = await request(url).get('/page').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toBe('<p>page</p>');
    await request(url).get('/fails').expect(500, { error: 'handled' });
    expect(server.headersTimeout).toBe(5_000);
    expect(server.requestTimeout).toBe(10_000);
  });
});
