import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createErrorHandler,
  createLogger,
  createOpenApiDocument,
  defineRoute,
  HttpError,
  listMountedRoutes,
  mountRoutes,
  openApiPath,
  openApiRoutes,
  publicAccess,
  publishedDocument,
  plainTextRefusal,
  withStatus,
  type AnswerSigner,
  defineErrorCodes,
  type AnyRoute,
  type Guard,
} from '../src/index.js';

const memberOnly: Guard = {
  name: 'member',
  middleware: [
    (req, _res, next) => next(req.get('x-member') === 'yes' ? undefined : new HttpError(401, 'Unauthorized')),
  ],
  security: [{ member: [] }],
};

const note = z.object({ id: z.string(), text: z.string(), pinned: z.boolean() });
const picked = z.object({ picked: z.string() });
const notes = new Map<string, z.infer<typeof note>>();
let seenRoute: string | undefined;
const recordRoute: RequestHandler = (_req, res, next) => {
  seenRoute = res.locals.route?.summary;
  next();
};

const routes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/api/notes',
    summary: 'Create a note',
    tags: ['notes'],
    guard: memberOnly,
    status: 201,
    body: z.object({ text: z.string().min(1).max(100), pinned: z.boolean().default(false) }),
    responses: { 201: { description: 'Created', schema: z.object({ success: z.literal(true), note }) } },
    audit: { action: 'create', resource: 'note' },
    handler: ({ body }) => {
      // `body.text` is a string and `body.pinned` a boolean here, with no cast.
      const created = { id: String(notes.size + 1), text: body.text, pinned: body.pinned };
      notes.set(created.id, created);
      return { success: true, note: created };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/notes/:id',
    summary: 'Read a note',
    guard: publicAccess,
    before: [recordRoute],
    params: z.object({ id: z.string().regex(/^\d+$/) }),
    query: z.object({ fields: z.enum(['all', 'text']).optional() }),
    responses: {
      200: { description: 'The note, or only its text', schema: z.union([note, note.pick({ text: true })]) },
      404: { description: 'No such note' },
    },
    handler: ({ params, query }) => {
      const found = notes.get(params.id);
      if (!found) throw new HttpError(404, 'Note not found');
      return query.fields === 'text' ? { text: found.text } : found;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/notes/:id/raw',
    summary: 'A note as text',
    guard: publicAccess,
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The text', contentType: 'text/plain' } },
    handler: ({ params, res }) => {
      res.type('text/plain').send(`${notes.get(params.id)?.text ?? ''}\n`);
    },
  }),
];

function appOf(declared: AnyRoute[]) {
  const app = express();
  app.use(express.json());
  const options = {
    info: { title: 'Notes', version: '1.0.0' },
    securitySchemes: { member: { type: 'apiKey', in: 'header', name: 'X-Member' } },
  };
  let document: Record<string, unknown> = {};
  const meta = openApiRoutes(() => document);
  const all = [...declared, ...meta.routes];
  document = createOpenApiDocument(all, options);
  app.use(meta.assets);
  app.use(mountRoutes(all));
  app.use(createErrorHandler({ successFlag: true, logger: createLogger({ level: 'silent' }) }));
  return { app, document };
}

describe('routes declared as data', () => {
  const { app, document } = appOf(routes);

  it('runs the guard, validates the body and answers the returned value with the declared status', async () => {
    await request(app).post('/api/notes').send({ text: 'hi' }).expect(401);
    const created = await request(app).post('/api/notes').set('x-member', 'yes').send({ text: 'hi' }).expect(201);
    expect(created.body).toEqual({ success: true, note: { id: '1', text: 'hi', pinned: false } });
    const refused = await request(app).post('/api/notes').set('x-member', 'yes').send({ text: '' }).expect(400);
    expect(refused.body.error).toBe('Validation failed');
    expect(Object.keys(refused.body.details)).toEqual(['text']);
  });

  it('validates params and query, and tells the middleware which route it serves', async () => {
    await request(app).post('/api/notes').set('x-member', 'yes').send({ text: 'second' }).expect(201);
    expect((await request(app).get('/api/notes/2?fields=text').expect(200)).body).toEqual({ text: 'second' });
    expect(seenRoute).toBe('Read a note');
    await request(app).get('/api/notes/x').expect(400);
    await request(app).get('/api/notes/2?fields=everything').expect(400);
    expect((await request(app).get('/api/notes/99').expect(404)).body.error).toBe('Note not found');
  });

  it('lets a handler send its own answer', async () => {
    const answer = await request(app).get('/notes/1/raw').expect(200);
    expect(answer.type).toBe('text/plain');
    expect(answer.text).toBe('hi\n');
  });

  it('describes every mounted route in a valid OpenAPI 3.1 document, and nothing else', async () => {
    const served = await request(app).get('/openapi.json').expect(200);
    // Published without the internal operations (the reference page); the inventory marks them.
    expect(served.body).toEqual(publishedDocument(document));
    expect((document.paths as Record<string, Record<string, unknown>>)['/docs']!.get).toMatchObject({
      'x-internal': true,
    });
    expect(served.body.paths['/docs']).toBeUndefined();
    const validator = new Validator();
    const result = await validator.validate(served.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    const mounted = listMountedRoutes(app)
      .map(({ method, path }) => `${method} ${openApiPath(path)}`)
      .sort();
    const documented = Object.entries(document.paths as Record<string, object>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
      .sort();
    expect(mounted).toEqual(documented);
    expect(documented).toContain('get /api/notes/{id}');

    const paths = document.paths as Record<
      string,
      Record<string, { parameters?: { name: string; in: string; required: boolean }[]; security: unknown[] }>
    >;
    expect(paths['/api/notes/{id}']!.get!.parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
      expect.objectContaining({ name: 'fields', in: 'query', required: false }),
    ]);
    expect(paths['/api/notes']!.post!.security).toEqual([{ member: [] }]);
  });

  it('serves a reference page whose assets load from this server', async () => {
    await request(app).get('/docs').expect(301).expect('location', '/docs/');
    const page = await request(app).get('/docs/').expect(200);
    expect(page.text).toContain('swagger-ui');
    await request(app).get('/docs/swagger-ui.css').expect(200);
    const init = await request(app).get('/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('/openapi.json');
  });
});

describe('answering a write with JSON', () => {
  // A write's answer is written without Express's res.json when the app hashes no ETag; it must
  // be the same bytes and headers Express sends.
  const echo = defineRoute({
    method: 'post',
    path: '/api/echo',
    summary: 'Echo',
    guard: publicAccess,
    status: 201,
    body: z.object({ text: z.string() }),
    responses: { 201: { description: 'Echoed', schema: z.object({ text: z.string(), at: z.string() }) } },
    handler: ({ body }) => ({ text: body.text, at: new Date(0), skipped: undefined }),
  });
  const withEtag = (etag: boolean) => {
    const app = express();
    app.set('etag', etag);
    app.use(express.json());
    app.use(mountRoutes([echo]));
    return app;
  };

  it('sends what res.json sends: status, type, length and bytes, multi-byte text included', async () => {
    const text = 'déjà vu — 東京 🎉';
    const direct = await request(withEtag(false)).post('/api/echo').send({ text }).expect(201);
    const viaExpress = await request(withEtag(true)).post('/api/echo').send({ text }).expect(201);
    expect(viaExpress.headers.etag).toBeDefined();
    expect(direct.headers.etag).toBeUndefined();
    for (const header of ['content-type', 'content-length'])
      expect(direct.headers[header]).toBe(viaExpress.headers[header]);
    expect(direct.text).toBe(viaExpress.text);
    expect(direct.text).toBe(JSON.stringify({ text, at: '1970-01-01T00:00:00.000Z' }));
    expect(Number(direct.headers['content-length'])).toBe(Buffer.byteLength(direct.text));
  });
});

describe("matching requests to routes as Express's router does", () => {
  const seen: string[] = [];
  const table = mountRoutes([
    defineRoute({
      method: 'head',
      path: '/files/:name',
      summary: 'Whether a file exists',
      guard: publicAccess,
      responses: { 200: { description: 'Yes' } },
      handler: ({ res }) => {
        seen.push('head');
        res.set('X-Exists', 'yes').end();
      },
    }),
    defineRoute({
      method: 'get',
      path: '/files/:name',
      summary: 'A file',
      guard: publicAccess,
      responses: { 200: { description: 'It', schema: z.object({ name: z.string() }) } },
      params: z.object({ name: z.string() }),
      handler: ({ params }) => ({ name: params.name }),
    }),
    defineRoute({
      method: 'get',
      path: '/texts/:name',
      summary: 'A text (HEAD answered by the GET route)',
      guard: publicAccess,
      responses: { 200: { description: 'It' } },
      handler: ({ res }) => {
        seen.push('get text');
        res.type('text/plain').send('text');
      },
    }),
    defineRoute({
      method: 'get',
      path: '/pick/:which',
      summary: 'Passes on what is not its own',
      guard: publicAccess,
      responses: { 200: { description: 'It', schema: picked } },
      before: [(req, _res, next) => next(req.params.which === 'second' ? 'route' : undefined)],
      handler: () => ({ picked: 'first' }),
    }),
    defineRoute({
      method: 'get',
      path: '/pick/:which',
      summary: 'The next matching route',
      guard: publicAccess,
      responses: { 200: { description: 'It', schema: picked } },
      handler: () => ({ picked: 'second' }),
    }),
    defineRoute({
      method: 'post',
      path: '/files/:name',
      summary: 'Rejects',
      guard: publicAccess,
      responses: { 500: { description: 'Fails' } },
      handler: () => Promise.reject(new Error('handler failed')),
    }),
  ]);
  const app = express();
  app.use(table);
  app.use((req, res) => {
    res.status(404).json({ fellThrough: true, params: req.params });
  });
  app.use(createErrorHandler({ successFlag: true, logger: createLogger({ level: 'silent' }) }));

  it('decodes parameters, ignores case and a trailing slash, and answers a malformed escape with 400', async () => {
    expect((await request(app).get('/files/a%20b').expect(200)).body).toEqual({ name: 'a b' });
    expect((await request(app).get('/FILES/x/').expect(200)).body).toEqual({ name: 'x' });
    expect((await request(app).get('/files/x?y=1').expect(200)).body).toEqual({ name: 'x' });
    await request(app).get('/files/%E0%A4%A').expect(400);
  });

  it('answers HEAD with a HEAD route when there is one, else with the GET route', async () => {
    seen.length = 0;
    await request(app).head('/files/x').expect(200).expect('x-exists', 'yes');
    await request(app).head('/texts/x').expect(200);
    expect(seen).toEqual(['head', 'get text']);
  });

  it("moves on to the next matching route on next('route'), and to the app when none is left", async () => {
    expect((await request(app).get('/pick/first').expect(200)).body).toEqual({ picked: 'first' });
    expect((await request(app).get('/pick/second').expect(200)).body).toEqual({ picked: 'second' });
    // What follows the table sees none of the table's params (Express sets them per layer).
    expect((await request(app).get('/files/x/more').expect(404)).body).toEqual({ fellThrough: true, params: {} });
    expect((await request(app).get('/pick/third/more').expect(404)).body.params).toEqual({});
    expect((await request(app).delete('/files/x').expect(404)).body.fellThrough).toBe(true);
  });

  it("sends a rejected handler's error to the error handler", async () => {
    const answer = await request(app).post('/files/x').expect(500);
    expect(answer.body.success).toBe(false);
  });

  it("answers OPTIONS with the methods the path has, as Express's router does", async () => {
    const answer = await request(app).options('/files/x').expect(200);
    expect(answer.headers.allow).toBe('GET, HEAD, POST');
    expect(answer.text).toBe('GET, HEAD, POST');
    await request(app).options('/nothing/here').expect(404);
  });
});

describe('handlers typed from their declared answers', () => {
  it('compiles a handler that returns a declared body (a Date where a string is declared), and refuses one that does not', () => {
    const answer = z.object({ success: z.literal(true), at: z.iso.datetime(), state: z.enum(['open', 'closed']) });
    const fine = defineRoute({
      method: 'get',
      path: '/typed',
      summary: 'Typed',
      guard: publicAccess,
      responses: { 200: { description: 'It', schema: answer } },
      handler: async () => ({ success: true, at: await Promise.resolve(new Date(0)), state: 'open' as const }),
    });
    defineRoute({
      method: 'get',
      path: '/typed',
      summary: 'Typed',
      guard: publicAccess,
      responses: { 200: { description: 'It', schema: answer } },
      // @ts-expect-error `state` is not one of the declared values
      handler: () => ({ success: true, at: '1970-01-01T00:00:00.000Z', state: 'ajar' as const }),
    });
    defineRoute({
      method: 'get',
      path: '/typed',
      summary: 'Typed',
      guard: publicAccess,
      responses: { 200: { description: 'It', schema: answer } },
      // @ts-expect-error `at` is missing
      handler: () => ({ success: true, state: 'open' as const }),
    });
    defineRoute({
      method: 'get',
      path: '/page',
      summary: 'A page',
      guard: publicAccess,
      responses: { 200: { description: 'HTML', contentType: 'text/html' } },
      // @ts-expect-error no JSON answer is declared, so the handler must answer itself
      handler: () => ({ html: '<p>' }),
    });
    expect(fine.path).toBe('/typed');
  });
});

describe('checking answers against their declared schemas', () => {
  const declared = defineRoute({
    method: 'get',
    path: '/api/clock',
    summary: 'The time',
    guard: publicAccess,
    query: z.object({ broken: z.enum(['yes', 'no']).default('no') }),
    responses: { 200: { description: 'Now', schema: z.object({ now: z.iso.datetime(), zone: z.string() }) } },
    // A Date is sent as its ISO string, so it matches a datetime string; a missing field does not
    // (the cast stands for a handler whose types are wrong, which the check must still catch).
    handler: ({ query }) =>
      query.broken === 'yes'
        ? ({ now: new Date(0) } as { now: Date; zone: string })
        : { now: new Date(0), zone: 'UTC' },
  });
  const appWith = (checkResponses: boolean) => {
    const app = express();
    app.use(mountRoutes([declared], { checkResponses }));
    app.use(createErrorHandler({ successFlag: true, logger: createLogger({ level: 'silent' }) }));
    return app;
  };

  it('passes an answer that matches once sent as JSON', async () => {
    expect((await request(appWith(true)).get('/api/clock').expect(200)).body).toEqual({
      now: '1970-01-01T00:00:00.000Z',
      zone: 'UTC',
    });
  });

  it('fails an answer that does not match, so a test sees the description is wrong', async () => {
    await request(appWith(true)).get('/api/clock?broken=yes').expect(500);
    // Without the check (production) the answer goes out as the handler made it.
    expect((await request(appWith(false)).get('/api/clock?broken=yes').expect(200)).body).toEqual({
      now: '1970-01-01T00:00:00.000Z',
    });
  });
});

describe('error codes', () => {
  // An app's catalogue, as apps/paste and apps/license define theirs.
  const { appError, errorCodes } = defineErrorCodes({
    PASTE_EXPIRED: { status: 410, message: 'Paste expired' },
    LICENSE_VALIDATION_NOT_FOUND: { status: 400, message: 'License not found' },
    PANIC_MODE: { status: 503, message: 'Service unavailable: panic mode is active' },
  });
  it.each([
    { name: 'a paste that is gone', code: 'PASTE_EXPIRED' as const, status: 410, error: 'Paste expired' },
    {
      name: 'a validation of an unknown key',
      code: 'LICENSE_VALIDATION_NOT_FOUND' as const,
      status: 400,
      error: 'License not found',
    },
    {
      name: 'panic mode',
      code: 'PANIC_MODE' as const,
      status: 503,
      error: 'Service unavailable: panic mode is active',
    },
  ])('answers $name with the status and text of its code', async ({ code, status, error }) => {
    const app = express();
    app.use(
      mountRoutes([
        defineRoute({
          method: 'get',
          path: '/boom',
          summary: 'fails',
          guard: publicAccess,
          responses: { [status]: { description: error } },
          handler: () => {
            throw appError(code);
          },
        }),
      ]),
    );
    app.use(createErrorHandler({ successFlag: true, logger: createLogger({ level: 'silent' }) }));
    const answer = await request(app).get('/boom').expect(status);
    expect(answer.body).toEqual({ success: false, error });
    expect(errorCodes[code].status).toBe(status);
  });
});

describe('how a route answers (its answer kind)', () => {
  const signedBody = z.object({ success: z.literal(true), seat: z.string(), issuedAt: z.string() });
  /** Adds `issuedAt`, signs the bytes by reversing them: enough to see the pipeline use it. */
  const signer: AnswerSigner = {
    complete: (_req, body) => ({ ...body, issuedAt: '2026-12-05T00:00:00.000Z' }),
    send: (res, status, body) => {
      const bytes = JSON.stringify(body);
      res
        .status(status)
        .set('X-Signature', [...bytes].reverse().join(''))
        .type('json')
        .send(bytes);
    },
    errors: [],
  };
  const seats = new Set<string>();
  const app = express();
  app.use(express.json());
  app.use(
    mountRoutes(
      [
        defineRoute({
          method: 'post',
          path: '/seats',
          summary: 'Take a seat (signed)',
          guard: publicAccess,
          answer: 'signed',
          signer,
          body: z.object({ seat: z.string() }),
          responses: {
            200: { description: 'Held already', schema: signedBody },
            201: { description: 'Taken', schema: signedBody },
          },
          // The handler returns the body without what the signer adds; the status picks the 2xx.
          handler: ({ body }) => {
            const known = seats.has(body.seat);
            seats.add(body.seat);
            return withStatus(known ? 200 : 201, { success: true, seat: body.seat });
          },
        }),
        defineRoute({
          method: 'get',
          path: '/raw/:name',
          summary: 'Plain text',
          guard: publicAccess,
          answer: 'text',
          params: z.object({ name: z.string() }),
          responses: { 200: { description: 'Text', contentType: 'text/plain' } },
          handler: ({ params, res }) => {
            if (params.name === 'gone') throw new HttpError(410, 'Expired');
            if (params.name === 'broken') throw new Error('a bug');
            res.type('text/plain').send(`${params.name}\n`);
          },
        }),
        defineRoute({
          method: 'post',
          path: '/form',
          summary: 'A form shown again when refused',
          guard: publicAccess,
          answer: 'page',
          body: z.object({ name: z.string() }),
          refused: {
            when: (error) => error.status === 400,
            render: (error, { body, res }) => {
              res.status(error.status).type('html').send(`<p>${error.message}: ${body.name}</p>`);
            },
          },
          responses: { 200: { description: 'Saved', contentType: 'text/html' } },
          handler: ({ body, res }) => {
            if (body.name === '') throw new HttpError(400, 'Name is required');
            if (body.name === 'missing') throw new HttpError(404, 'Not found');
            res.type('html').send('<p>Saved</p>');
          },
        }),
      ],
      { checkResponses: true, refusals: { text: plainTextRefusal } },
    ),
  );
  app.use(createErrorHandler({ successFlag: false, logger: createLogger({ level: 'silent' }) }));

  it('signs a signed route answer: the signer completes, checks and sends the body with the status returned', async () => {
    const taken = await request(app).post('/seats').send({ seat: 'a' }).expect(201);
    expect(taken.text).toBe('{"success":true,"seat":"a","issuedAt":"2026-12-05T00:00:00.000Z"}');
    expect(taken.headers['x-signature']).toBe([...taken.text].reverse().join(''));
    await request(app).post('/seats').send({ seat: 'a' }).expect(200);
  });

  it("answers a text route's refusals as plain text, and leaves a failure to the error handler", async () => {
    const gone = await request(app).get('/raw/gone').expect(410);
    expect(gone.type).toBe('text/plain');
    expect(gone.text).toBe('Expired\n');
    expect((await request(app).get('/raw/broken').expect(500)).body).toEqual({ error: 'Internal server error' });
  });

  it("answers the refusals a route's own answer takes with it, and the others as any error", async () => {
    const again = await request(app).post('/form').send({ name: '' }).expect(400);
    expect(again.text).toBe('<p>Name is required: </p>');
    expect((await request(app).post('/form').send({ name: 'missing' }).expect(404)).body).toEqual({
      error: 'Not found',
    });
  });

  it('refuses a signer on a route that does not answer signed, and a signed route without one', () => {
    const declare = (answer: 'json' | 'signed', withSigner: boolean) => () =>
      defineRoute({
        method: 'get',
        path: '/x',
        summary: 'x',
        guard: publicAccess,
        answer,
        ...(withSigner ? { signer } : {}),
        responses: {},
        handler: () => undefined,
      });
    expect(declare('json', true)).toThrow(/signer/);
    expect(declare('signed', false)).toThrow(/signer/);
    expect(declare('signed', true)).not.toThrow();
  });
});
