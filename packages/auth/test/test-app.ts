import http from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { createErrorHandler, createLogger } from '@app/http';
import type { Database } from '@app/db';
import { createTestDatabase } from '@app/db/testing';
import { startDevIdp, type DevIdp } from '@app/dev-idp';
import { createAuth, requireOwner, requireSignedIn, requireUser, type Auth } from '../src/index.js';

export const migrationsFolder = path.resolve(import.meta.dirname, 'fixtures/migrations');
export const OWNER_ID = 'owner-1';

export interface TestApp {
  baseUrl: string;
  auth: Auth;
  signIns: string[];
  signOuts: string[];
  /** What the auth package warned about (the Secure cookie over plain http). */
  warnings: string[];
  close(): Promise<void>;
}

/**
 * A small app wired the way the services wire auth, listening on port 0 (the callback URL
 * needs the real port, so the server listens before the app is built).
 */
export async function startTestApp(options: {
  database: Database;
  idp: DevIdp | undefined;
  secureCookies?: boolean;
  trustsProxy?: boolean;
}): Promise<TestApp> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signIns: string[] = [];
  const signOuts: string[] = [];
  const warnings: string[] = [];

  const auth = createAuth({
    pool: options.database.pool,
    sessionSecret: 'test-secret-that-is-long-enough-0123456789',
    sessionTtlMs: 60 * 60_000,
    secureCookies: options.secureCookies ?? false,
    cookieName: 'test.sid',
    sessionTable: 'session',
    publicUrl: baseUrl,
    oauth: options.idp?.oauth,
    onSignIn: (user) => {
      signIns.push(user.id);
      return Promise.resolve();
    },
    onSignOut: (user) => {
      signOuts.push(user.id);
      return Promise.resolve();
    },
    trustsProxy: options.trustsProxy ?? true,
    warn: (message) => {
      warnings.push(message);
    },
  });

  const app = express();
  // Lets a test claim https through X-Forwarded-Proto, as a TLS-terminating proxy would.
  app.set('trust proxy', 'loopback');
  app.use(express.json());
  app.use(express.urlencoded({ extended: false }));
  app.use(...auth.session);
  app.use(auth.routes);
  app.get('/', (_req, res) => {
    res.type('text').send('home');
  });
  app.get('/api/owner-only', requireOwner(OWNER_ID), (_req, res) => {
    res.json({ ok: true });
  });
  app.get(
    '/api/members-only',
    requireUser((user) => Promise.resolve(user.id.startsWith('member-')), 'Members only'),
    (_req, res) => {
      res.json({ ok: true });
    },
  );
  app.post('/api/things', auth.csrf, requireSignedIn(), (req, res) => {
    res.json({ ok: true, user: req.user?.id });
  });
  app.post('/api/public', auth.csrf, (req, res) => {
    res.json({ web: auth.hasValidCsrfToken(req) });
  });
  app.use(createErrorHandler({ successFlag: false, logger: createLogger({ level: 'silent' }) }));
  server.on('request', app);

  return {
    baseUrl,
    auth,
    signIns,
    signOuts,
    warnings,
    async close() {
      await auth.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** One GET without following redirects; `cookie` is sent when given. */
export interface AuthTestSetup {
  database: Database;
  idp: DevIdp;
  app: TestApp;
  /** Present with `withSecureApp`: a second app on the same database that sets Secure cookies. */
  secureApp: TestApp;
}

/**
 * Registers the file's beforeAll/afterAll: a test database, the dev identity provider and the
 * test app. Read the fields inside tests (they are set once beforeAll has run).
 */
export function setUpAuthTests(options: { withSecureApp?: boolean } = {}): AuthTestSetup {
  const setup = {} as AuthTestSetup;
  beforeAll(async () => {
    setup.database = await createTestDatabase(migrationsFolder);
    setup.idp = await startDevIdp({ port: 0 });
    setup.app = await startTestApp({ database: setup.database, idp: setup.idp });
    if (options.withSecureApp)
      setup.secureApp = await startTestApp({ database: setup.database, idp: setup.idp, secureCookies: true });
  });
  afterAll(async () => {
    await setup.app?.close();
    await setup.secureApp?.close();
    await setup.idp?.stop();
    await setup.database?.close();
  });
  return setup;
}

export async function get(url: string, cookie?: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers: { ...headers, ...(cookie ? { Cookie: cookie } : {}) } });
}

/** The `name=value` part of the Set-Cookie for `name`, and the whole line. */
export function setCookie(response: Response, name: string): { pair: string; line: string } | undefined {
  const line = response.headers.getSetCookie().find((candidate) => candidate.startsWith(`${name}=`));
  return line ? { pair: line.split(';')[0] ?? '', line } : undefined;
}
