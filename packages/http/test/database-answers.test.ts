import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express, { type Express } from 'express';
import pg from 'pg';
import request from 'supertest';
import { z } from 'zod';
import type { Database } from '@app/db';
import { createEmptyEmbeddedDatabase } from '@app/db/testing';
import { createErrorHandler, createLogger, validate } from '../src/index.js';

const logger = createLogger({ level: 'silent' });
let database: Database;
let app: Express;
// Nothing listens on port 1: every query fails to connect, as when the database restarts.
const unreachable = new pg.Pool({
  connectionString: 'postgresql://postgres@127.0.0.1:1/postgres',
  connectionTimeoutMillis: 2000,
});

beforeAll(async () => {
  database = await createEmptyEmbeddedDatabase();
  await database.pool.query('CREATE TABLE things (name text PRIMARY KEY, meta jsonb)');
  app = express();
  app.use(express.json());
  app.post(
    '/things',
    validate({ body: z.object({ name: z.string(), meta: z.record(z.string(), z.unknown()).optional() }) }),
    async (req, res) => {
      const body = req.valid.body as { name: string; meta?: Record<string, unknown> };
      await database.pool.query('INSERT INTO things (name, meta) VALUES ($1, $2)', [
        body.name,
        JSON.stringify(body.meta ?? {}),
      ]);
      res.status(201).json({ ok: true });
    },
  );
  app.get('/things', validate({ query: z.object({ search: z.string().optional() }) }), async (_req, res) => {
    res.json((await unreachable.query('SELECT 1')).rows);
  });
  app.use(createErrorHandler({ successFlag: true, logger }));
}, 60_000);
afterAll(async () => {
  await database?.close();
  await unreachable.end();
});

describe('database failures as HTTP answers', () => {
  it('answers a unique value taken with 409, whoever checked first', async () => {
    expect((await request(app).post('/things').send({ name: 'one' })).status).toBe(201);
    const taken = await request(app).post('/things').send({ name: 'one' });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ success: false, error: 'Conflict: this value is already taken' });
  });

  it('answers a database it cannot reach with 503 and Retry-After', async () => {
    const res = await request(app).get('/things');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ success: false, error: 'Service temporarily unavailable, please retry' });
  });
});

describe('text the database cannot store', () => {
  it.each([
    {
      name: 'a lone high surrogate in a value',
      body: { name: 'a\ud800b' },
      details: { name: 'Must not contain unpaired surrogate characters' },
    },
    {
      name: 'a lone low surrogate at the start',
      body: { name: '\udc00' },
      details: { name: 'Must not contain unpaired surrogate characters' },
    },
    { name: 'a NUL in a value', body: { name: 'a\u0000' }, details: { name: 'Must not contain NUL characters' } },
    {
      name: 'a lone surrogate deep in a free-form object',
      body: { name: 'x', meta: { list: ['ok', { deep: '\ud83d' }] } },
      details: { 'meta.list.1.deep': 'Must not contain unpaired surrogate characters' },
    },
    {
      name: 'a lone surrogate in a key of a free-form object',
      body: { name: 'x', meta: { 'k\ud800': 1 } },
      details: { meta: 'Keys: must not contain unpaired surrogate characters' },
    },
    {
      name: 'a NUL in a key',
      body: { name: 'x', meta: { inner: { 'k\u0000': 1 } } },
      details: { 'meta.inner': 'Keys: must not contain NUL characters' },
    },
  ])('answers $name with 400 Validation failed naming the field', async ({ body, details }) => {
    const res = await request(app).post('/things').set('Content-Type', 'application/json').send(JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Validation failed', details });
  });

  it('accepts paired surrogates (emoji) and stores them', async () => {
    const res = await request(app)
      .post('/things')
      .send({ name: 'smile 😀', meta: { '😀': '𝄞' } });
    expect(res.status).toBe(201);
    const { rows } = await database.pool.query("SELECT meta FROM things WHERE name = 'smile 😀'");
    expect(rows[0].meta).toEqual({ '😀': '𝄞' });
  });

  it('refuses a NUL in a query string too', async () => {
    const res = await request(app).get('/things?search=a%00b');
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual({ search: 'Must not contain NUL characters' });
  });
});
