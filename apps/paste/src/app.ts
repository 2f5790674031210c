import path from 'node:path';
import { randomInt } from 'node:crypto';
import express, { Router, type Express, type Request } from 'express';
import type { Config } from '@app/config';
import type { Database } from '@app/db';
import { createAuth, type Auth, type OAuthSettings } from '@app/auth';
import { apiNotFound, commonMiddleware, createErrorHandler, healthRoutes, type Logger } from '@app/http';
import type { Redis } from '@app/rate-limit';
import type { SettingsStore } from '@app/settings';
import { createApiKeyRepository } from './api-keys/api-key.repository.js';
import { apiKeyRoutes } from './api-keys/api-key.routes.js';
import { createApiKeyService } from './api-keys/api-key.service.js';
import { createHighlighter } from './pages/highlight.js';
import { adminRoutes } from './pages/admin.routes.js';
import { pageRoutes } from './pages/pages.routes.js';
import { errorPage } from './pages/views.js';
import { pasteBodyParser } from './pastes/paste-body.js';
import { createPasteRepository } from './pastes/paste.repository.js';
import { creatorRoutes } from './pastes/creator.routes.js';
import { createDeleteAccess } from './pastes/delete-access.js';
import { pasteRoutes } from './pastes/paste.routes.js';
import { createPasteService, type PasteService } from './pastes/paste.service.js';
import { createPasswordAttemptsRepository } from './pastes/password-attempts.repository.js';
import { settingsRoutes } from './settings/settings.routes.js';
import type { PasteSettings } from './settings/settings.schema.js';
import { createAccess } from './shared/access.js';
import { createStatsRepository } from './stats/stats.repository.js';
import { statsRoutes } from './stats/stats.routes.js';
import { createStatsService } from './stats/stats.service.js';
import { uploadedFiles, uploadRoutes } from './uploads/upload.routes.js';
import { createUploadService } from './uploads/upload.service.js';

export const publicDir = path.resolve(import.meta.dirname, '../public');
export const migrationsFolder = path.resolve(import.meta.dirname, '../drizzle');

export interface PasteAppDeps {
  config: Config;
  database: Database;
  logger: Logger;
  settings: SettingsStore<PasteSettings>;
  /**
   * Where the identity provider is; the provider returns to `${publicUrl}/auth/idp/callback`.
   * Without one, sign-in answers 503 naming what to configure; the rest of the site works.
   */
  oauth: OAuthSettings | undefined;
  publicUrl: string;
  /** Folder of uploaded logos and favicons. */
  uploadDir: string;
  /** Shared rate-limit counts across instances; in-process counts without it. */
  redis?: Redis;
  /** Key prefix of the rate-limit counts (default 'paste'); instances sharing counts use the same one. */
  rateLimitName?: string;
  now?: () => Date;
  randomInt?: (maxExclusive: number) => number;
  /** bcrypt cost of paste passwords (tests lower it). */
  bcryptRounds?: number;
}

export interface PasteApp {
  app: Express;
  auth: Auth;
  pastes: PasteService;
  close(): Promise<void>;
}

const SESSION_COOKIE = 'paste.sid';

const isHotPath = (req: Request) =>
  (req.method === 'GET' && req.path.startsWith('/paste/')) || (req.method === 'POST' && req.path === '/api/paste');

const pagePath = (req: Request) => !req.path.startsWith('/api/') && req.path !== '/api' && !req.path.startsWith('/auth/');

/** Builds the paste service's Express app without listening. */
export function createApp(deps: PasteAppDeps): PasteApp {
  const { config, database, logger, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const random = deps.randomInt ?? randomInt;

  const pastes = createPasteService({
    repository: createPasteRepository(database.pool), passwordAttempts: createPasswordAttemptsRepository(database.pool),
    settings, now, randomInt: random, bcryptRounds: deps.bcryptRounds ?? 10, publicUrl: deps.publicUrl,
  });
  const apiKeys = createApiKeyService(createApiKeyRepository(database.pool));
  const stats = createStatsService(createStatsRepository(database.pool));
  const uploads = createUploadService({ dir: deps.uploadDir, settings, now, randomInt: random, logger });
  const auth = createAuth({
    pool: database.pool,
    sessionSecret: config.SESSION_SECRET ?? 'paste-development-session-secret-not-for-production',
    sessionTtlMs: config.PASTE_SESSION_TTL_HOURS * 3_600_000,
    secureCookies: config.NODE_ENV === 'production' || deps.publicUrl.startsWith('https:'),
    cookieName: SESSION_COOKIE,
    publicUrl: deps.publicUrl,
    oauth: deps.oauth,
  });
  const access = createAccess({ auth, settings, apiKeys, ownerId: config.OWNER_ID, redis: deps.redis, rateLimitName: deps.rateLimitName });

  const app = express();
  // Pages change with every view (the count) and say no-store; hashing each body for an ETag is wasted work.
  app.set('etag', false);
  // Paste bodies may be far larger than any other body: their parser comes first, sized by maxPasteSize.
  app.post('/api/paste', pasteBodyParser(settings));
  commonMiddleware(app, { logger, bodyLimit: '1mb', trustProxy: config.TRUST_PROXY });
  app.use(healthRoutes(database.pool));
  // Static files: before the session (no session lookup) and outside every rate limit.
  app.use('/static', express.static(publicDir, { index: false, maxAge: '1h' }));
  app.use('/uploads/images', uploadedFiles(deps.uploadDir));
  app.get('/favicon.ico', (_req, res) => res.redirect(302, settings.get().favIcon));

  // Reading a paste or posting one without a session cookie needs no session: skipping the
  // session machinery there (a new session id, passport) is a large share of those hot paths.
  const sessions = Router().use(...auth.session);
  app.use((req, res, next) => {
    if (isHotPath(req) && !req.headers.cookie?.includes(`${SESSION_COOKIE}=`)) return next();
    sessions(req, res, next);
  });
  // The paste routes first: they carry nearly all the traffic, and every router passed on the way costs.
  app.use(pasteRoutes({ service: pastes, settings, access, highlight: createHighlighter(), now }));
  const deleteAccess = createDeleteAccess({ auth, access, apiKeys, ownerId: config.OWNER_ID });
  app.use(creatorRoutes({ service: pastes, settings, access, deleteAccess, now }));
  app.use(auth.routes);
  app.use(pageRoutes({ settings }));
  app.use(settingsRoutes({ settings, access }));
  app.use(apiKeyRoutes({ service: apiKeys, access }));
  app.use(statsRoutes({ service: stats, access }));
  app.use(uploadRoutes({ service: uploads, access }));
  app.use(adminRoutes({ settings, stats, apiKeys, access, ownerId: config.OWNER_ID }));

  app.use(apiNotFound);
  // Every other unknown path, whatever the method: the HTML page, never Express's "Cannot GET".
  app.use((_req, res) => { res.status(404).type('html').send(errorPage(settings.get(), 404, 'Page not found')); });
  app.use(createErrorHandler({
    style: 'paste',
    logger,
    // People get readable pages; /api, /auth and programs posting to /verify get JSON.
    renderHtml: (req, status, message) => {
      if (!pagePath(req)) return undefined;
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.accepts(['json', 'html']) !== 'html') return undefined;
      return errorPage(settings.get(), status, message);
    },
  }));

  return {
    app,
    auth,
    pastes,
    async close() {
      access.close();
      await auth.close();
    },
  };
}
