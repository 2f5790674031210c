import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createLogger, requestLogger, secretHeaders } from '../src/logger.js';

/** A logger at `level` whose lines are kept as text, as they would reach standard output. */
function capturedLogger(level: string, maskLine?: (line: string) => string) {
  const text: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ level, destination, maskLine });
  return { logger, text, lines: () => text.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

function appLogging(level: string, maskLine?: (line: string) => string) {
  const captured = capturedLogger(level, maskLine);
  const app = express();
  app.use(requestLogger(captured.logger, { userId: (req) => req.get('x-test-user') }));
  app.get('/ok', (_req, res) => {
    res.json({ ok: true });
  });
  app.post('/ok', express.json(), (_req, res) => {
    res.set('Set-Cookie', 'sid=cookie-secret-value; HttpOnly').json({ ok: true });
  });
  app.get('/missing', (_req, res) => {
    res.status(404).json({ error: 'no' });
  });
  // Answers with a credential in the header named in the query.
  app.get('/echo', (req, res) => {
    res.set(req.query.header as string, 'answer-header-secret').json({ ok: true });
  });
  app.get('/away', (_req, res) => {
    res.redirect(
      302,
      'https://idp.example/authorize?response_type=code&client_id=paste&state=state-secret-value&code_challenge=challenge-secret#frag-secret',
    );
  });
  app.get('/broken', (_req, res) => {
    res.status(503).end();
  });
  app.get('/healthz', (_req, res) => {
    res.status(500).end();
  });
  return { app, ...captured };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

const shape = (line: Record<string, unknown>) => ({
  level: line.level,
  msg: line.msg,
  method: line.method,
  path: line.path,
  status: line.status,
});

describe('request log', () => {
  it.each(['info', 'warn'])(
    'at %s, logs 2xx at info, 4xx at warn and 5xx at error, and health probes never',
    async (level) => {
      const { app, lines } = appLogging(level);
      await request(app).get('/ok').expect(200);
      await request(app).get('/missing').expect(404);
      await request(app).get('/broken').expect(503);
      await request(app).get('/healthz').expect(500);
      await settled();
      const expected = [
        { level: 40, msg: 'request completed', method: 'GET', path: '/missing', status: 404 },
        { level: 50, msg: 'request completed', method: 'GET', path: '/broken', status: 503 },
      ];
      if (level === 'info')
        expected.unshift({ level: 30, msg: 'request completed', method: 'GET', path: '/ok', status: 200 });
      expect(lines().map(shape)).toEqual(expected);
    },
  );

  it('writes an info line of at most 300 bytes with method, path, status, duration, request id and user, and no headers', async () => {
    const { app, text, lines } = appLogging('info');
    await request(app)
      .get('/ok?token=query-secret&page=2')
      .set(
        'User-Agent',
        `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 ${'x'.repeat(500)}`,
      )
      .set('Accept-Language', 'en-GB,en;q=0.9')
      .set('X-Test-User', 'user-42')
      .expect(200);
    await settled();
    expect(text).toHaveLength(1);
    expect(Buffer.byteLength(text[0]!)).toBeLessThanOrEqual(300);
    const [line] = lines();
    expect(line).toMatchObject({
      level: 30,
      method: 'GET',
      path: '/ok',
      status: 200,
      userId: 'user-42',
      reqId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(typeof line!.ms).toBe('number');
    expect(text[0]).not.toMatch(/query-secret|page=2|Mozilla|headers/);
  });

  it('keeps a request id a proxy set in X-Request-Id, and makes a new one for each request otherwise', async () => {
    const { app, lines } = appLogging('info');
    await request(app).get('/ok').set('X-Request-Id', 'edge-1234').expect(200);
    await request(app).get('/ok').expect(200);
    await request(app).get('/ok').set('X-Request-Id', 'not acceptable: spaces and "quotes"').expect(200);
    await settled();
    const ids = lines().map((line) => line.reqId);
    expect(ids[0]).toBe('edge-1234');
    expect(ids[1]).not.toBe(ids[2]);
    expect(ids[2]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('cuts a very long path short, so a line stays small', async () => {
    const { app, text } = appLogging('info');
    await request(app)
      .get(`/${'a'.repeat(5000)}`)
      .expect(404);
    await settled();
    expect(Buffer.byteLength(text[0]!)).toBeLessThanOrEqual(400);
  });

  it('at debug adds the headers and the query keys, with credentials and credential-like query values redacted', async () => {
    const { app, text, lines } = appLogging('debug');
    await request(app)
      .post('/ok?token=query-token-secret&apiKey=query-key-secret&code=oauth-code-secret&page=2')
      .set('Cookie', 'sid=request-cookie-secret')
      .set('Authorization', 'Bearer authorization-secret')
      .set('User-Agent', 'test-agent')
      .send({ password: 'body-secret' })
      .expect(200);
    await settled();
    const [line] = lines() as Array<{
      query: Record<string, string>;
      req: { headers: Record<string, string> };
      res: { headers: Record<string, unknown> };
    }>;
    expect(line!.query).toEqual({ token: '[redacted]', apiKey: '[redacted]', code: '[redacted]', page: '2' });
    expect(line!.req.headers).toMatchObject({
      cookie: '[redacted]',
      authorization: '[redacted]',
      'user-agent': 'test-agent',
    });
    expect(line!.res.headers['set-cookie']).toBe('[redacted]');
    expect(text.join('')).not.toMatch(/secret/);
  });

  it.each(secretHeaders)(
    'never writes the value of the %s header, in a request or in an answer, at trace',
    async (header) => {
      const { app, text } = appLogging('trace');
      await request(app).get('/missing').set(header, 'request-header-secret').expect(404);
      await request(app).get(`/echo?header=${header}`).expect(200);
      await settled();
      const [asked, answered] = text.map(
        (line) =>
          JSON.parse(line) as { req: { headers: Record<string, string> }; res: { headers: Record<string, string> } },
      );
      expect(asked!.req.headers[header]).toBe('[redacted]');
      expect(answered!.res.headers[header]).toBe('[redacted]');
      expect(text.join('')).not.toMatch(/request-header-secret|answer-header-secret/);
    },
  );

  it.each(['X-Auth-Token', 'X-Session-Id', 'X-Webhook-Signature', 'X-Client-Secret', 'X-Access-Token'])(
    'redacts %s too, in a request and in an answer: a header whose name says it is a credential',
    async (header) => {
      const { app, text } = appLogging('debug');
      await request(app).get(`/echo?header=${header}`).set(header, 'request-header-secret').expect(200);
      await settled();
      const [line] = text.map(
        (entry) =>
          JSON.parse(entry) as { req: { headers: Record<string, string> }; res: { headers: Record<string, string> } },
      );
      expect(line!.req.headers[header.toLowerCase()]).toBe('[redacted]');
      expect(line!.res.headers[header.toLowerCase()]).toBe('[redacted]');
      expect(text.join('')).not.toMatch(/header-secret/);
    },
  );

  it('masks credential-like query values and the fragment of a Location or Referer URL, keeping the rest', async () => {
    const { app, text } = appLogging('trace');
    await request(app)
      .get('/away')
      .set('Referer', 'https://site.example/paste/abc?token=referer-secret&view=raw')
      .expect(302);
    await settled();
    const [line] = text.map(
      (entry) =>
        JSON.parse(entry) as { req: { headers: Record<string, string> }; res: { headers: Record<string, string> } },
    );
    expect(line!.res.headers.location).toBe(
      'https://idp.example/authorize?response_type=code&client_id=paste&state=[redacted]&code_challenge=[redacted]#[redacted]',
    );
    expect(line!.req.headers.referer).toBe('https://site.example/paste/abc?token=[redacted]&view=raw');
    expect(text.join('')).not.toMatch(/secret/);
  });

  it('passes every line through maskLine before writing it', async () => {
    const { app, text } = appLogging('info', (line) => line.replaceAll('hidden-part', '***'));
    await request(app).get('/missing/hidden-part').expect(404);
    await settled();
    expect(text.join('')).toContain('"/missing/***"');
  });

  it('logs nothing while the level is silent', async () => {
    const { app, text } = appLogging('silent');
    await request(app).get('/broken').expect(503);
    await settled();
    expect(text).toEqual([]);
  });
});
