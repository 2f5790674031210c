import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@app/db';
import { createTestDatabase } from '@app/db/testing';
import { createLogger } from '@app/http';
import { loadConfig } from '@app/config';
import { resolveIdentityProvider } from '../src/index.js';
import { get, migrationsFolder, startTestApp, type TestApp } from './test-app.js';

const VARIABLES = [
  'OAUTH_AUTHORIZATION_URL',
  'OAUTH_TOKEN_URL',
  'OAUTH_USERINFO_URL',
  'OAUTH_CLIENT_ID',
  'OAUTH_CLIENT_SECRET',
];

describe('without an identity provider', () => {
  let database: Database;
  let app: TestApp;
  beforeAll(async () => {
    database = await createTestDatabase(migrationsFolder);
    app = await startTestApp({ database, idp: undefined });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it.each(['/auth/idp', '/auth/idp?login_hint=alice', '/auth/idp/callback?code=x&state=y'])(
    'GET %s answers 503 naming every OAUTH_* variable and the callback URL to register',
    async (route) => {
      const response = await get(`${app.baseUrl}${route}`);
      expect(response.status).toBe(503);
      const callbackUrl = `${app.baseUrl}/auth/idp/callback`;
      expect(await response.json()).toEqual({
        error:
          `Sign-in is not configured: set ${VARIABLES.slice(0, 4).join(', ')} and OAUTH_CLIENT_SECRET (see .env.example), ` +
          `and register ${callbackUrl} as the redirect (callback) URL at your identity provider.`,
        variables: VARIABLES,
        callbackUrl,
      });
    },
  );

  it('still answers everything that needs no sign-in: status, CSRF token, public routes', async () => {
    const status = await get(`${app.baseUrl}/auth/status`);
    expect(await status.json()).toEqual({ authenticated: false, user: null, session: {} });
    const token = await get(`${app.baseUrl}/api/csrf-token`);
    expect(token.status).toBe(200);
    expect((await token.json()).csrfToken).toMatch(/.{20,}/);
    expect((await get(`${app.baseUrl}/api/owner-only`)).status).toBe(401);
  });
});

describe('choosing the identity provider at start-up', () => {
  const logged: { fields: unknown; message: string }[] = [];
  const logger = createLogger({ level: 'silent' });
  logger.warn = ((fields: unknown, message: string) => {
    logged.push({ fields, message });
  }) as typeof logger.warn;

  it('in production without OAUTH_* starts none and logs what to set, with the callback URL', async () => {
    const provider = await resolveIdentityProvider(
      loadConfig({ NODE_ENV: 'production' }),
      logger,
      'https://paste.example.com/',
    );
    expect(provider).toEqual({ oauth: undefined });
    expect(logged.at(-1)).toEqual({
      fields: { variables: VARIABLES, callbackUrl: 'https://paste.example.com/auth/idp/callback' },
      message: expect.stringContaining(
        'register https://paste.example.com/auth/idp/callback as the redirect (callback) URL',
      ),
    });
  });

  it('takes the configured provider', async () => {
    const provider = await resolveIdentityProvider(
      loadConfig({
        NODE_ENV: 'production',
        OAUTH_CLIENT_ID: 'client',
        OAUTH_CLIENT_SECRET: 'secret',
        OAUTH_AUTHORIZATION_URL: 'https://idp.example.com/a',
        OAUTH_TOKEN_URL: 'https://idp.example.com/t',
        OAUTH_USERINFO_URL: 'https://idp.example.com/u',
      }),
      logger,
      'https://paste.example.com',
    );
    expect(provider).toEqual({
      oauth: {
        authorizationURL: 'https://idp.example.com/a',
        tokenURL: 'https://idp.example.com/t',
        userInfoURL: 'https://idp.example.com/u',
        clientID: 'client',
        clientSecret: 'secret',
        scope: 'openid profile',
        idField: 'id',
        usernameField: 'username',
      },
    });
  });

  it('outside production without OAUTH_* starts the development provider and warns', async () => {
    const provider = await resolveIdentityProvider(
      loadConfig({ NODE_ENV: 'development', DEV_IDP_PORT: '0' }),
      logger,
      'http://localhost:8080',
    );
    try {
      expect(provider.devIdp).toBeDefined();
      expect(provider.oauth).toEqual(provider.devIdp!.oauth);
      expect(logged.at(-1)?.message).toContain('DEVELOPMENT IDENTITY PROVIDER');
    } finally {
      await provider.devIdp?.stop();
    }
  });
});
