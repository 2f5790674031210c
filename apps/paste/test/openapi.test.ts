import { Validator } from '@seriousme/openapi-schema-validator';
import { lintOpenApi } from '@app/http/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMountedRoutes, openApiPath } from '@app/http';
import { pasteOpenApiDocument } from '../src/api-docs/api-docs.module.js';
import { startTestSite, type TestSite } from './helpers.js';

type Operations = Record<string, { security?: unknown[]; parameters?: { name: string; in: string }[] }>;

/** `get /paste/{slug}` as its path and method. */
const splitOperation = (operation: string): [string, string] => {
  const [method, path] = operation.split(' ') as [string, string];
  return [path, method];
};

describe('the paste service describes its API in OpenAPI 3.1', () => {
  let site: TestSite;
  let document: { openapi: string; paths: Record<string, Operations> };
  /** Every declared route, the pages included: internal to the API description, so GET /openapi.json leaves them out. */
  let inventory: { paths: Record<string, Operations> };
  beforeAll(async () => {
    site = await startTestSite();
    document = (await site.http.get('/openapi.json').expect(200).expect('content-type', /json/)).body;
    inventory = pasteOpenApiDocument(site.paste.modules) as { paths: Record<string, Operations> };
  });
  afterAll(() => site.close());

  it('serves a document that a maintained validator accepts as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('lists the paste routes with their parameters and credentials', () => {
    expect(Object.keys(inventory.paths)).toEqual(
      expect.arrayContaining([
        '/api/paste',
        '/paste/{slug}',
        '/paste/{slug}/raw',
        '/paste/{slug}/reveal',
        '/api/paste/{slug}',
        '/api/settings',
        '/admin',
        '/auth/idp',
        '/healthz',
        '/openapi.json',
        '/docs',
      ]),
    );
    expect(inventory.paths['/paste/{slug}']!.get!.parameters).toEqual([
      expect.objectContaining({ name: 'slug', in: 'path' }),
    ]);
    expect(document.paths['/api/settings/general']!.post!.security).toEqual([{ session: [], csrf: [] }]);
    expect(document.paths['/api/paste']!.post!.security).toEqual([{}, { apiKey: [] }, { bearer: [] }]);
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
        if (method === 'head') continue;
        const success = Object.entries(operation.responses).filter(
          ([status]) => status.startsWith('2') && status !== '204',
        );
        if (success.length === 0 || success.some(([, answer]) => !answer.content))
          undescribed.push(`${method} ${path}`);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('documents every mounted route, and mounts every documented one', () => {
    const mounted = listMountedRoutes(site.paste.app)
      .map(({ method, path }) => `${method} ${openApiPath(path)}`)
      .sort();
    const documented = Object.entries(inventory.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
      .sort();
    expect(mounted).toEqual(documented);
    // The API as published: every operation the inventory does not mark internal, and no other.
    const published = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
      .sort();
    const internal = (path: string, method: string) =>
      (inventory.paths[path]![method] as { 'x-internal'?: boolean })['x-internal'] === true;
    expect(published).toEqual(documented.filter((operation) => !internal(...splitOperation(operation))));
    expect(published).not.toContain('get /paste/{slug}');
  });

  it('serves the reference page with its assets from this server', async () => {
    await site.http.get('/docs').expect(301).expect('location', '/docs/');
    expect((await site.http.get('/docs/').expect(200)).text).toContain('swagger-ui');
    await site.http.get('/docs/swagger-ui.css').expect(200);
  });
});
