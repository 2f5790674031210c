import { Validator } from '@seriousme/openapi-schema-validator';
import { lintOpenApi } from '@app/http/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { listMountedRoutes, openApiPath } from '@app/http';
import { buildTestApp, type TestApp } from './helpers.js';

/**
 * The routes anyone may call: validation and its machine requests (signed, rate-limited), the
 * public key, the release upgrade question, Tauri's feed and download links (the license key or
 * a signed link decides), the front page (sign-in for visitors), sign-in and out, health, the API
 * description, Stripe's signed webhook. Everything else declares the admin or customer guard
 * (a console page the admin guard as a page answers it, a portal page the customer's).
 */
const publicOperations = [
  'get /',
  'get /api/csrf-token',
  'get /api/license/downloads/{artifactId}',
  'get /api/license/public-key',
  'get /api/license/updates/tauri/{productId}/{target}/{arch}/{currentVersion}',
  'get /auth/idp',
  'get /auth/idp/callback',
  'get /auth/logout',
  'get /auth/status',
  'get /docs',
  'get /favicon.ico',
  'get /healthz',
  'get /openapi.json',
  'get /readyz',
  'post /api/license/machines/activate',
  'post /api/license/machines/borrow',
  'post /api/license/machines/deactivate',
  'post /api/license/machines/heartbeat',
  'post /api/license/releases/upgrade',
  'post /api/license/validate',
  'post /api/stripe',
];

type Paths = Record<string, Record<string, { security?: unknown[]; parameters?: Array<{ name: string; in: string }> }>>;

describe(`the OpenAPI document (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let document: { openapi: string; paths: Paths };
  /** Every declared route, the console's and portal's pages included (marked x-internal). */
  let inventory: { paths: Paths };
  beforeAll(async () => {
    t = await buildTestApp();
    document = (await t.http.get('/openapi.json').expect(200)).body;
    inventory = t.openApiDocument() as { paths: Paths };
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET /openapi.json validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(document.paths['/api/license/validate']?.post).toBeDefined();
  });

  it("documents every mounted route, the shared packages' ones included, and mounts every documented one", () => {
    const mounted = [
      ...new Set(listMountedRoutes(t.app).map(({ method, path }) => `${method} ${openApiPath(path)}`)),
    ].sort();
    const documented = Object.entries(inventory.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
      .sort();
    expect(mounted).toEqual(documented);
    for (const route of [
      'get /healthz',
      'get /readyz',
      'get /auth/idp',
      'get /auth/idp/callback',
      'get /api/csrf-token',
    ])
      expect(documented).toContain(route);
  });

  it("passes Redocly's recommended lint without an error, as outside tools read it", async () => {
    const problems = await lintOpenApi(document);
    expect(problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  }, 30_000);

  it('describes the body of every API answer of success', () => {
    const undescribed: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const [method, operation] of Object.entries(
        operations as Record<string, { responses: Record<string, { content?: unknown }> }>,
      )) {
        // A download link answers with a redirect to the file (302), never a body of its own.
        if (method === 'head' || `${method} ${path}` === 'get /api/license/downloads/{artifactId}') continue;
        const success = Object.entries(operation.responses).filter(
          ([status]) => status.startsWith('2') && status !== '204',
        );
        if (success.length === 0 || success.some(([, answer]) => !answer.content))
          undescribed.push(`${method} ${path}`);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('publishes the API without the pages and form posts, which the inventory marks internal', () => {
    const operations = (paths: Paths, internal: boolean) =>
      Object.entries(paths)
        .flatMap(([path, ops]) =>
          Object.entries(ops)
            .filter(([, operation]) => ((operation as { 'x-internal'?: boolean })['x-internal'] === true) === internal)
            .map(([method]) => `${method} ${path}`),
        )
        .sort();
    expect(operations(document.paths, true)).toEqual([]);
    expect(operations(document.paths, false)).toEqual(operations(inventory.paths, false));
    expect(operations(inventory.paths, true)).toEqual(
      expect.arrayContaining([
        'get /licenses/{id}',
        'post /licenses/{id}/suspend',
        'get /my-licenses/{licenseId}',
        'get /auth/idp',
      ]),
    );
  });

  it("names each route's guard and parameters", () => {
    expect(document.paths['/api/licenses/{id}']!.get!.security).toEqual([{ session: [] }, { bearer: [] }]);
    expect(document.paths['/api/customer/licenses/stats']!.get!.security).toEqual([{ session: [] }]);
    expect(document.paths['/api/license/validate']!.post!.security).toEqual([]);
    expect(document.paths['/api/licenses/{id}']!.get!.parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path' }),
    ]);
    expect(inventory.paths['/licenses/{id}']!.get!.security).toEqual([{ session: [] }, { bearer: [] }]);
    expect(inventory.paths['/my-licenses/{licenseId}']!.get!.security).toEqual([{ session: [] }]);
  });

  it('declares who may call each route: the public ones are exactly these, so no page checks access inside its handler', () => {
    const open = Object.entries(inventory.paths)
      .flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([method, operation]) => method !== 'head' && (operation.security ?? []).length === 0)
          .map(([method]) => `${method} ${path}`),
      )
      .sort();
    expect(open).toEqual(publicOperations);
  });

  it('serves the reference page at /docs with its assets from this server', async () => {
    await t.http.get('/docs').expect(301).expect('location', '/docs/');
    const page = await t.http.get('/docs/').expect(200);
    expect(page.text).toContain('swagger-ui');
    await t.http.get('/docs/swagger-ui.css').expect(200);
    expect((await t.http.get('/docs/swagger-ui-init.js').expect(200)).text).toContain('/openapi.json');
  });
});
