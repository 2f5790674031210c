import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLogger } from '../src/logger.js';

function appLogging(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({ write(chunk, _encoding, callback) { lines.push(JSON.parse(String(chunk))); callback(); } });
  const app = express();
  app.use(requestLogger(pino({ level }, stream)));
  app.get('/ok', (_req, res) => { res.json({ ok: true }); });
  app.get('/missing', (_req, res) => { res.status(404).json({ error: 'no' }); });
  app.get('/broken', (_req, res) => { res.status(503).end(); });
  app.get('/healthz', (_req, res) => { res.status(500).end(); });
  return { app, lines };
}

const shape = (line: Record<string, unknown>) => ({
  level: line.level, msg: line.msg, method: (line.req as { method?: string })?.method, url: (line.req as { url?: string })?.url,
  status: (line.res as { statusCode?: number })?.statusCode, hasTime: typeof line.responseTime === 'number', err: Boolean(line.err),
});

describe('request log', () => {
  it('logs every request at info; 4xx at warn and 5xx at error when info is off, with the same fields', async () => {
    for (const level of ['info', 'warn']) {
      const { app, lines } = appLogging(level);
      await request(app).get('/ok').expect(200);
      await request(app).get('/missing').expect(404);
      await request(app).get('/broken').expect(503);
      await request(app).get('/healthz').expect(500);
      await new Promise((resolve) => setImmediate(resolve));
      const expected = [
        { level: 40, msg: 'request completed', method: 'GET', url: '/missing', status: 404, hasTime: true, err: false },
        { level: 50, msg: 'request errored', method: 'GET', url: '/broken', status: 503, hasTime: true, err: true },
      ];
      if (level === 'info') expected.unshift({ level: 30, msg: 'request completed', method: 'GET', url: '/ok', status: 200, hasTime: true, err: false });
      expect(lines.map(shape)).toEqual(expected);
    }
  });
});
