import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createErrorHandler, createLogger, validate, validationDetails, readableIssue } from '../src/index.js';

const bodySchema = z.object({
  maxViews: z.number().int().min(1).optional(),
  expiresIn: z.number().int().min(1).max(31_536_000).optional(),
  ratio: z.number().positive().optional(),
  step: z.number().multipleOf(5).optional(),
  title: z.string().max(5).optional(),
  name: z.string().trim().min(1).optional(),
  code: z.string().length(4).optional(),
  tags: z.array(z.string()).min(1).max(2).optional(),
  nested: z.object({ count: z.number().int().nonnegative() }).optional(),
  list: z.array(z.object({ n: z.number().int().lt(10) })).optional(),
  visibility: z.enum(['public', 'private', 'unlisted']).optional(),
  kind: z.literal('webhook').optional(),
  enabled: z.boolean().optional(),
  email: z.email().optional(),
  url: z.url().optional(),
  at: z.iso.datetime().optional(),
  id: z.uuid().optional(),
  color: z
    .string()
    .regex(/^#[0-9a-f]{6}$/)
    .optional(),
  prefixed: z.string().startsWith('sk_').optional(),
  limit: z.union([z.number().int(), z.null()]).optional(),
  even: z
    .number()
    .refine((value) => value % 2 === 0)
    .optional(),
  required: z.string(),
  // Deliberate texts a schema sets are kept as written.
  licensePrefix: z
    .string()
    .regex(/^[A-Z]+$/, 'Must be 1 to 20 capital letters')
    .optional(),
  key: z.string().min(1, 'License key is required').optional(),
  strict: z.strictObject({ a: z.number() }).optional(),
});
const querySchema = z.object({ page: z.coerce.number().int().min(1).default(1) });

const app = express();
app.use(express.json());
app.post('/things', validate({ body: bodySchema, query: querySchema }), (_req, res) => {
  res.json({ ok: true });
});
app.use(createErrorHandler({ successFlag: true, logger: createLogger({ level: 'silent' }) }));

const base = { required: 'x' };

describe('validation details are written for people', () => {
  it.each([
    { field: 'maxViews', value: 0, message: 'maxViews must be a whole number of at least 1' },
    { field: 'maxViews', value: 'three', message: 'maxViews must be a whole number of at least 1' },
    { field: 'maxViews', value: 1.5, message: 'maxViews must be a whole number of at least 1' },
    { field: 'expiresIn', value: 31_536_001, message: 'expiresIn must be a whole number from 1 to 31,536,000' },
    { field: 'ratio', value: 0, message: 'ratio must be a number greater than 0' },
    { field: 'step', value: 7, message: 'step must be a multiple of 5' },
    { field: 'title', value: 'too long', message: 'title must be at most 5 characters long' },
    { field: 'name', value: '   ', message: 'name must not be empty' },
    { field: 'name', value: 42, message: 'name must be text' },
    { field: 'code', value: 'abc', message: 'code must be exactly 4 characters long' },
    { field: 'tags', value: [], message: 'tags must not be empty' },
    { field: 'tags', value: ['a', 'b', 'c'], message: 'tags must have at most 2 items' },
    { field: 'tags', value: 'a', message: 'tags must be a list' },
    {
      field: 'nested.count',
      value: { count: -1 },
      message: 'nested.count must be a whole number of at least 0',
      send: 'nested',
    },
    {
      field: 'list.1.n',
      value: [{ n: 1 }, { n: 10 }],
      message: 'list.1.n must be a whole number of at most 9',
      send: 'list',
    },
    { field: 'visibility', value: 'secret', message: 'visibility must be one of "public", "private", "unlisted"' },
    { field: 'kind', value: 'email', message: 'kind must be "webhook"' },
    { field: 'enabled', value: 'yes', message: 'enabled must be true or false' },
    { field: 'email', value: 'nope', message: 'email must be an email address' },
    { field: 'url', value: 'not a url', message: 'url must be a URL' },
    {
      field: 'at',
      value: 'tomorrow',
      message: 'at must be a date and time in ISO 8601 format (e.g. 2025-01-31T12:00:00Z)',
    },
    { field: 'id', value: '123', message: 'id must be a UUID' },
    { field: 'color', value: 'red', message: 'color is not in the expected format' },
    { field: 'prefixed', value: 'pk_1', message: 'prefixed must start with "sk_"' },
    { field: 'limit', value: 'many', message: 'limit must be a number or null' },
    { field: 'even', value: 3, message: 'even is not valid' },
    { field: 'licensePrefix', value: 'acme', message: 'Must be 1 to 20 capital letters' },
    { field: 'key', value: '', message: 'License key is required' },
    { field: 'strict', value: { a: 1, b: 2 }, message: 'b is not a known field' },
  ])('$field = $value: "$message"', async ({ field, value, message, send }) => {
    const key = send ?? field;
    const res = await request(app)
      .post('/things')
      .send({ ...base, [key]: value });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Validation failed', details: { [field]: message } });
  });

  it('names a missing field as required', async () => {
    const res = await request(app).post('/things').send({});
    expect(res.body.details).toEqual({ required: 'required is required' });
  });

  it('describes a query parameter the same way', async () => {
    const res = await request(app).post('/things?page=zero').send(base);
    expect(res.body.details).toEqual({ page: 'page must be a whole number of at least 1' });
  });

  it('says the body must be an object when it is not one', async () => {
    const res = await request(app).post('/things').send([1, 2]);
    expect(res.body.details).toEqual({ _root: 'The input must be an object' });
  });

  it("never answers with zod's own wording", async () => {
    const res = await request(app)
      .post('/things')
      .send({ maxViews: 'x', title: 'far too long', visibility: 'x', tags: 'x', at: 'x' });
    expect(JSON.stringify(res.body.details)).not.toMatch(
      /Invalid input|Too small|Too big|Invalid option|expected \w+, received/,
    );
  });

  it('gives readable details to other callers of safeParse that pass readableIssue', () => {
    const result = z.object({ quantity: z.number().int().min(1) }).safeParse({ quantity: 0 }, { error: readableIssue });
    expect(result.success).toBe(false);
    expect(validationDetails(result.error!)).toEqual({ quantity: 'quantity must be a whole number of at least 1' });
  });
});
