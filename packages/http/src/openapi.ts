import { createRequire } from 'node:module';
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import {
  prepareDocument,
  referenceInitScript,
  referenceStyles,
  sendDocument,
  type PreparedDocument,
} from './api-reference.js';
import { answerKindOf, defineRoute, publicAccess, type AnyRoute } from './routes.js';
import { compressedFiles } from './performance/compressed-files.js';

type JsonSchema = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

export interface OpenApiOptions {
  info: OpenApiInfo;
  /** Security schemes the guards name (`{ session: { type: 'apiKey', in: 'cookie', name: 'sid' } }`). */
  securitySchemes?: Record<string, JsonSchema>;
  /**
   * Where the API is served; by default `/`, the server that serves the document (OpenAPI reads
   * a relative URL against the document's own address), so one document fits every deployment.
   */
  servers?: Array<{ url: string; description?: string }>;
}

/** Express's `/paste/:slug` as OpenAPI's `/paste/{slug}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function pathParameterNames(expressPath: string): string[] {
  return [...expressPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

/**
 * JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a zod schema: what a client may send for
 * requests, what it receives for answers. Transforms and refinements cannot be expressed and
 * are left open rather than failing the document.
 */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  });
  return rest;
}

/** Each property of an object schema as a parameter `in` the path or the query string. */
function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query', names: string[] = []): JsonSchema[] {
  const objectSchema = schema ? jsonSchemaOf(schema, 'input') : { type: 'object', properties: {} };
  const properties = (objectSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((objectSchema.required ?? []) as string[]);
  const all = new Set([...names, ...Object.keys(properties)]);
  return [...all].map((name) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: properties[name] ?? { type: 'string' },
  }));
}

function operationOf(route: AnyRoute): JsonSchema {
  const parameters = [
    ...parametersOf(route.params, 'path', pathParameterNames(route.path)),
    ...(route.query ? parametersOf(route.query, 'query') : []),
  ];
  const responses: Record<string, JsonSchema> = {};
  for (const [status, answer] of Object.entries(route.responses)) {
    responses[status] = {
      description: answer.description,
      ...(answer.schema || answer.contentType
        ? {
            content: {
              [answer.contentType ?? 'application/json']: {
                schema: answer.schema ? jsonSchemaOf(answer.schema, 'output') : {},
              },
            },
          }
        : {}),
    };
  }
  const kind = answerKindOf(route);
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    // Pages and form posts are for browsers, not programs: listed (so every mounted route is), marked internal.
    ...(kind === 'page' || kind === 'redirect' ? { 'x-internal': true } : {}),
    ...(route.tags ? { tags: route.tags } : {}),
    operationId: `${route.method}${openApiPath(route.path).replace(/[^A-Za-z0-9]+(.)?/g, (_m, next: string | undefined) => (next ?? '').toUpperCase())}`,
    security: route.guard.security ?? [],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchemaOf(route.body, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of a service, made from the same declarations that serve it. */
export function createOpenApiDocument(routes: readonly AnyRoute[], options: OpenApiOptions): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const operations = (paths[openApiPath(route.path)] ??= {});
    operations[route.method] = operationOf(route);
  }
  return {
    openapi: '3.1.0',
    info: options.info,
    servers: options.servers ?? [{ url: '/', description: 'The server that serves this document' }],
    paths,
    components: { securitySchemes: options.securitySchemes ?? {} },
  };
}

/**
 * The document as programs and outside tools read it: without the operations marked internal
 * (pages and form posts, which are for browsers), as Redocly's `remove-x-internal` leaves a
 * document it publishes. The full document, internal operations included, is the inventory of
 * every route (tests compare it with what is mounted).
 */
export function publishedDocument(document: JsonSchema): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, JsonSchema>>)) {
    const kept = Object.entries(operations).filter(([, operation]) => operation['x-internal'] !== true);
    if (kept.length > 0) paths[path] = Object.fromEntries(kept);
  }
  return { ...document, paths };
}

/** swagger-ui-dist's folder, as swagger-ui-express (whose dependency it is) finds it. */
function swaggerUiDistFolder(): string {
  const fromHere = createRequire(import.meta.url);
  const fromExpress = createRequire(fromHere.resolve('swagger-ui-express'));
  return path.dirname(fromExpress.resolve('swagger-ui-dist/package.json'));
}

/**
 * `GET /openapi.json` (the published document: the API, without the internal pages) and a
 * reference page at `GET /docs` (Swagger UI, served from node_modules: it works offline and
 * under the services' Content-Security-Policy). The two are declarations like every other
 * route, so the inventory lists them too; `assets` serves the page's scripts and styles below
 * `/docs/`.
 *
 * The document is serialised, compressed (brotli, gzip) and hashed once, and answered with its
 * ETag (304 when unchanged); the page carries a first view of every operation so it reads at
 * first paint, while Swagger UI (deferred) lays out the full reference (api-reference.ts).
 */
export function openApiRoutes(document: () => JsonSchema): { routes: AnyRoute[]; assets: Router } {
  let prepared: PreparedDocument | undefined;
  const ready = () => (prepared ??= prepareDocument(publishedDocument(document())));
  const routes = [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      summary: 'This API description (OpenAPI 3.1)',
      tags: ['meta'],
      guard: publicAccess,
      responses: {
        200: { description: 'The OpenAPI document' },
        304: { description: 'Unchanged since the copy the client has (ETag)' },
      },
      handler: ({ req, res }) => {
        sendDocument(req, res, ready());
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      summary: 'Readable API reference',
      tags: ['meta'],
      guard: publicAccess,
      answer: 'page',
      responses: { 200: { description: 'The reference page', contentType: 'text/html' } },
      // The page's assets are relative to `/docs/`.
      handler: ({ req, res }) => {
        if (req.originalUrl === '/docs') return res.redirect(301, '/docs/');
        res.set('Cache-Control', 'no-cache').type('html').send(ready().page);
      },
    }),
  ];
  // The page's own script and styles, then Swagger UI's files (middleware, not routes: assets are no API).
  const own: Record<string, [string, string]> = {
    '/swagger-ui-init.js': ['js', referenceInitScript],
    '/reference.css': ['css', referenceStyles],
  };
  const ownFiles: RequestHandler = (req, res, next) => {
    const file = req.method === 'GET' || req.method === 'HEAD' ? own[req.path] : undefined;
    if (!file) return next();
    res.type(file[0]).set('Cache-Control', 'no-cache').send(file[1]);
  };
  // Swagger UI's large files (its bundle is 1.7 MB) go compressed (some 0.4 MB in brotli).
  const swaggerCompressed = compressedFiles(() => {
    const dist = swaggerUiDistFolder();
    return {
      '/swagger-ui-bundle.js': { path: path.join(dist, 'swagger-ui-bundle.js'), type: 'js' },
      '/swagger-ui-standalone-preset.js': { path: path.join(dist, 'swagger-ui-standalone-preset.js'), type: 'js' },
      '/swagger-ui.css': { path: path.join(dist, 'swagger-ui.css'), type: 'css' },
    };
  });
  // Swagger UI's files, loaded at the first request for them: a service whose reference nobody
  // opens need not hold swagger-ui-express (docs/performance.md).
  let swaggerFiles: Promise<Router> | undefined;
  const swaggerAssets: RequestHandler = (req, res, next) => {
    swaggerFiles ??= import('swagger-ui-express').then(({ default: swaggerUi }) => Router().use(swaggerUi.serve));
    swaggerFiles.then((router) => router(req, res, next), next);
  };
  const assets = Router().use('/docs', ownFiles, swaggerCompressed, swaggerAssets);
  return { routes, assets };
}
