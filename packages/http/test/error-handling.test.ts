import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import express, { type Express } from 'express';
import request from 'supertest';
import { z } from 'zod';
import {
  apiNotFound,
  commonMiddleware,
  createErrorHandler,
  createLogger,
  healthRoutes,
  HttpError,
  validate,
} from '../src/index.js';

const logger = createLogger({ level: 'silent' });
const bodySchema = z.object({ name: z.string().min(1), count: z.number().int().min(1) });

function buildApp(successFlag: boolean): Express {
  const app = express();
  app.use(healthRoutes({ query: () => Promise.resolve({ rows: [] }) } as never));
  commonMiddleware(app, { logger, bodyLimit: '1kb', trustProxy: 'false' });
  app.post('/api/things', validate({ body: bodySchema }), (req, res) => {
    res.json({ ok: true, body: req.valid.body });
  });
  app.get('/api/things/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  app.get('/api/missing-thing', () => {
    throw new HttpError(404, 'Thing not found');
  });
  // Stands in for a repository: the error PostgreSQL raises for a NUL character in a text value.
  app.get('/api/by-name/:name', (req) => {
    if (req.params.name.includes('\u0000'))
      throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
    throw new HttpError(404, 'Thing not found');
  });
  app.get('/api/broken', () => {
    throw new Error('database password is hunter2');
  });
  app.get('/api/async-broken', async () => {
    await Promise.resolve();
    throw new Error('secret detail');
  });
  app.use(apiNotFound);
  app.use(createErrorHandler({ successFlag, logger }));
  return app;
}

describe.each([
  { successFlag: false, envelope: {} },
  { successFlag: true, envelope: { success: false } },
])('error answers with successFlag $successFlag', ({ successFlag, envelope }) => {
  const app = buildApp(successFlag);

  it('answers malformed JSON with 400 JSON, not an HTML stack trace', async () => {
    const res = await request(app).post('/api/things').set('Content-Type', 'application/json').send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({ ...envelope, error: 'Invalid JSON body' });
  });

  it('answers a body over the limit with 413 JSON', async () => {
    const res = await request(app)
      .post('/api/things')
      .send({ name: 'x'.repeat(5000), count: 1 });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ ...envelope, error: 'Request body too large' });
  });

  it.each([
    { name: 'a wrong type', body: { name: 'a', count: 'three' }, field: 'count' },
    { name: 'a missing field', body: { count: 2 }, field: 'name' },
    { name: 'an empty string', body: { name: '', count: 2 }, field: 'name' },
  ])('answers $name with 400 Validation failed and details by field', async ({ body, field }) => {
    const res = await request(app).post('/api/things').send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ...envelope, error: 'Validation failed' });
    expect(Object.keys(res.body.details)).toEqual([field]);
    expect(typeof res.body.details[field]).toBe('string');
  });

  it('answers a NUL character in a body string with 400 Validation failed naming the field', async () => {
    const res = await request(app).post('/api/things').send({ name: 'a\u0000b', count: 2 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      ...envelope,
      error: 'Validation failed',
      details: { name: 'Must not contain NUL characters' },
    });
  });

  it('answers the database refusing a character of the input with 400, not 500', async () => {
    const res = await request(app).get('/api/by-name/a%00b');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ...envelope, error: 'Invalid characters in input' });
  });

  it('ignores unknown fields', async () => {
    const res = await request(app).post('/api/things').send({ name: 'a', count: 2, extra: true });
    expect(res.status).toBe(200);
    expect(res.body.body).toEqual({ name: 'a', count: 2 });
  });

  it.each(['get', 'post', 'put', 'delete'] as const)(
    'answers %s of an unknown /api path with 404 { success: false, error: "Not found" }',
    async (method) => {
      for (const path of ['/api/nothing-here', '/api']) {
        const res = await request(app)[method](path);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ success: false, error: 'Not found' });
      }
    },
  );

  it('answers a path with broken percent-encoding with 400, not 500', async () => {
    const res = await request(app).get('/api/things/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ...envelope, error: 'Bad request' });
  });

  it('passes an HttpError through with its status and text', async () => {
    const res = await request(app).get('/api/missing-thing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ...envelope, error: 'Thing not found' });
  });

  it.each(['/api/broken', '/api/async-broken'])(
    'answers an unexpected error at %s with a generic 500 that leaks nothing',
    async (path) => {
      const res = await request(app).get(path);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ ...envelope, error: 'Internal server error' });
      expect(JSON.stringify(res.body)).not.toMatch(/hunter2|secret detail|at /);
    },
  );

  it('sets security headers and hides the framework', async () => {
    const res = await request(app).get('/api/missing-thing');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('answers health probes', async () => {
    expect((await request(app).get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(app).get('/readyz')).body).toEqual({ status: 'ready' });
  });
});

describe('readiness', () => {
  it('answers 503 when the database does not', async () => {
    const app = express();
    app.use(healthRoutes({ query: () => Promise.reject(new Error('connection refused')) } as never));
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('unavailable');
  });
});

describe('the log line of an unexpected error', () => {
  it('names the request (id, method, path) but leaves out the query string', async () => {
    const text: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        text.push(String(chunk));
        callback();
      },
    });
    const captured = createLogger({ level: 'error', destination });
    const app = express();
    commonMiddleware(app, { logger: captured, bodyLimit: '1kb', trustProxy: 'false' });
    app.get('/api/broken', () => {
      throw new Error('boom');
    });
    app.use(createErrorHandler({ successFlag: true, logger: captured }));
    await request(app).get('/api/broken?token=query-secret').set('X-Request-Id', 'req-7').expect(500);
    await new Promise((resolve) => setImmediate(resolve));
    const lines = text.map((line) => JSON.parse(line));
    expect(lines.find((line) => line.msg === 'request failed')).toMatchObject({
      reqId: 'req-7',
      method: 'GET',
      path: '/api/broken',
      err: { message: 'boom' },
    });
    expect(lines.find((line) => line.msg === 'request completed')).toMatchObject({ reqId: 'req-7', status: 500 });
    expect(text.join('')).not.toContain('query-secret');
  });
});
