import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fuzzRuns, jsonBodies, normalisedRoute, routesWithRequestBody } from '@app/http/testing';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

/**
 * Every route that takes a JSON body, sent arbitrary JSON: odd text (lone surrogates, NUL, full
 * Unicode, in values and keys), huge numbers, deep nesting, wrong types, shaped like the route's
 * fields or not. Whatever comes in, the answer is never a 5xx.
 */
interface Route {
  name: string;
  path: (slug: string) => string;
  /** `api`: no session (an API client); `page`: the site's own page (anonymous session with CSRF); `owner`: signed in, with CSRF. */
  auth: 'api' | 'page' | 'owner';
  fields: string[];
  /** A body the route accepts; the fuzzer replaces one or two of its fields. */
  valid?: Record<string, unknown>;
}

const pasteFields = ['content', 'maxViews', 'password', 'expiresIn', 'expiresAt', 'revealOnClick', 'title', 'language'];

const routes: Route[] = [
  {
    name: 'POST /api/paste (API client)',
    path: () => '/api/paste',
    auth: 'api',
    fields: pasteFields,
    valid: { content: 'hello' },
  },
  {
    name: 'POST /api/paste (site page)',
    path: () => '/api/paste',
    auth: 'page',
    fields: pasteFields,
    valid: { content: 'hello' },
  },
  // The "Show paste" form and the raw view behind it; a wrong password is 401.
  {
    name: 'POST /paste/:slug/reveal',
    path: (slug) => `/paste/${slug}/reveal`,
    auth: 'api',
    fields: ['password'],
    valid: { password: 'secret' },
  },
  {
    name: 'POST /paste/:slug/raw',
    path: (slug) => `/paste/${slug}/raw`,
    auth: 'api',
    fields: ['password'],
    valid: { password: 'secret' },
  },
  {
    name: 'POST /paste/:slug/verify',
    path: (slug) => `/paste/${slug}/verify`,
    auth: 'api',
    fields: ['password'],
    valid: { password: 'secret' },
  },
  // The confirmation page's form; a wrong token is refused with 403 and the paste stays.
  { name: 'POST /paste/:slug/delete', path: (slug) => `/paste/${slug}/delete`, auth: 'page', fields: ['token'] },
  {
    name: 'POST /api/settings/api-keys',
    path: () => '/api/settings/api-keys',
    auth: 'owner',
    fields: ['name'],
    valid: { name: 'fuzz' },
  },
  {
    name: 'POST /api/settings/general',
    path: () => '/api/settings/general',
    auth: 'owner',
    fields: ['siteName', 'siteDescription', 'primaryColor', 'secondaryColor'],
  },
  {
    name: 'POST /api/settings/security',
    path: () => '/api/settings/security',
    auth: 'owner',
    fields: [
      'webRateLimit',
      'webRateLimitWindow',
      'maxPasteSize',
      'apiAccess',
      'apiRateLimit',
      'apiRateLimitWindow',
      'apiKeyProtection',
    ],
  },
  {
    name: 'POST /api/settings/advanced',
    path: () => '/api/settings/advanced',
    auth: 'owner',
    fields: ['autoDeleteInactive', 'syntaxHighlighting', 'slugLength', 'slugCharacterSet'],
  },
];

let site: TestSite;
let slug: string;

beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site?.close();
});
// A settings route may switch the API off or lower a limit: each route starts from the defaults.
beforeEach(async () => {
  await site.reset();
  slug = await site.createPaste({ content: 'locked', password: 'secret' });
});

describe('the fuzz table (paste service)', () => {
  it('covers every route whose OpenAPI declaration has a JSON request body', async () => {
    const document = await site.http.get('/openapi.json');
    expect(document.status).toBe(200);
    const declared = routesWithRequestBody(document.body);
    expect(declared.length).toBeGreaterThan(3);
    // Every route of the table is a POST.
    const fuzzed = new Set(routes.map((route) => normalisedRoute('post', route.path('{}'))));
    expect(declared.filter((route) => !fuzzed.has(route))).toEqual([]);
  });
});

describe('arbitrary JSON bodies never answer 5xx (paste service)', () => {
  it.each(routes)(
    '$name',
    async (route) => {
      const session =
        route.auth === 'owner'
          ? await site.session(OWNER_ID)
          : route.auth === 'page'
            ? await site.pageSession()
            : undefined;
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(jsonBodies(route.fields, route.valid), async (body) => {
          const request = site.http
            .post(route.path(slug))
            .set('Content-Type', 'application/json')
            .set('Accept', 'application/json');
          if (session) request.set('Cookie', session.cookie).set('X-CSRF-Token', session.csrf);
          const response = await request.send(JSON.stringify(body));
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status >= 500)
            failures.push(
              `${response.status} ${JSON.stringify(response.body)} for ${JSON.stringify(body).slice(0, 300)}`,
            );
          return response.status < 500;
        }),
        { numRuns: fuzzRuns(route.fields), endOnFailure: true },
      );
      if (process.env.FUZZ_REPORT) console.log(route.name, Object.fromEntries(statuses));
      expect(failures).toEqual([]);
    },
    120_000,
  );
});
