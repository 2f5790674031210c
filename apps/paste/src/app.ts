import { createHmac, randomInt } from 'node:crypto';
import express, { Router, type Express, type Request, type RequestHandler } from 'express';
import type { Config } from '@app/config';
import { batchConcurrency, type Database } from '@app/db';
import type { JobQueue } from '@app/events';
import { createAuth, SESSION_START_WINDOW_MS, type Auth, type OAuthSettings } from '@app/auth';
import {
  apiNotFound,
  commonMiddleware,
  createErrorHandler,
  closeModules,
  healthRouteDeclarations,
  mountRoutes,
  mountStage,
  plainTextRefusal,
  readYourWrites,
  routesAt,
  trustsAProxy,
  wantsHtmlErrorPage,
  type FeatureModule,
  type Logger,
  type MountOptions,
} from '@app/http';
import { createRateLimiter, type Redis } from '@app/rate-limit';
import type { SettingsStore } from '@app/settings';
import { createObjectStore, storageSettingsOf, type ObjectStore } from '@app/storage';
import { createGuards, RATE_LIMIT_MESSAGE } from './access/guards.js';
import { sessionTableName } from './access/session.table.js';
import { viewerLocals } from './access/viewer.js';
import { apiDocsModules } from './api-docs/api-docs.module.js';
import { createApiKeyService } from './api-keys/api-keys.service.js';
import { apiKeysModule } from './api-keys/api-keys.module.js';
import { attachmentsModule, FILE_STORE_PATH } from './attachments/attachments.module.js';
import { createAttachmentService, type AttachmentService } from './attachments/attachments.service.js';
import { autoDeleteModule } from './auto-delete/auto-delete.module.js';
import { pagesModules } from './pages/pages.module.js';
import { errorData } from './pages/pages.page-data.js';
import { createViews, languages, useViews } from '@app/ui';
import { createOwnerCheck } from './creator/delete-access.js';
import { createModerationService } from './moderation/moderation.service.js';
import { createPasteService, type PasteService } from './pastes/pastes.service.js';
import { pastesModules } from './pastes/pastes.module.js';
import { creatorModule } from './creator/creator.module.js';
import { moderationModule } from './moderation/moderation.module.js';
import { plainTextErrors } from './pastes/plain-text.js';
import type { PasteSettings } from './settings/settings.schema.js';
import { settingsModule } from './settings/settings.module.js';
import { createStatsService } from './stats/stats.service.js';
import { statsModule } from './stats/stats.module.js';
import { createUploadService } from './uploads/uploads.service.js';
import { uploadsModules } from './uploads/uploads.module.js';
import { databaseUploadStore, folderUploadStore } from './uploads/upload-store.js';

import { localesDir, viewsDir } from './paths.js';

export { migrationsFolder, publicDir } from './paths.js';

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
  /** Folder of uploaded logos and favicons (with `uploadsIn: 'database'`, only read: files from before). */
  uploadDir: string;
  /**
   * Where uploads are kept: 'folder' (uploadDir; the default, one machine) or 'database' (a
   * database server: any number of instances, nothing in the data folder).
   */
  uploadsIn?: 'folder' | 'database';
  /** Shared rate-limit counts across instances; in-process counts without it. */
  redis?: Redis;
  /** Key prefix of the rate-limit counts (default 'paste'); instances sharing counts use the same one. */
  rateLimitName?: string;
  now?: () => Date;
  randomInt?: (maxExclusive: number) => number;
  /** bcrypt cost of paste passwords (tests lower it). */
  bcryptRounds?: number;
  /** The job queue the scheduled deletes run on; without it (tests) they are not scheduled. */
  jobs?: JobQueue;
  /**
   * Where attachments keep their bytes; by default the store STORAGE_URL names (the filesystem
   * store in DATA_DIR/objects unless told otherwise), its URLs under `${publicUrl}/objects`.
   */
  objects?: ObjectStore;
}

/** The filesystem store's URLs are signed with a key of their own, derived from the session secret. */
export function objectSigningSecret(sessionSecret: string): Buffer {
  return createHmac('sha256', sessionSecret).update('paste-object-urls').digest();
}

export interface PasteApp {
  app: Express;
  auth: Auth;
  pastes: PasteService;
  /** The files of pastes in the object store (the cleanup jobs' work, callable by tests and scripts). */
  attachments: AttachmentService;
  /** The modules mounted, in order: `startService` starts their jobs; the API description comes from them. */
  modules: readonly FeatureModule[];
  /** Stops the guards' timers, the modules' jobs and the sessions (not the database, queue or settings: the caller's). */
  close(): Promise<void>;
}

const SESSION_COOKIE = 'paste.sid';

const hasSessionCookie = (req: Request) => req.headers.cookie?.includes(`${SESSION_COOKIE}=`) === true;

const pagePath = (req: Request) =>
  !req.path.startsWith('/api/') && req.path !== '/api' && !req.path.startsWith('/auth/');

/** Builds the paste service's Express app without listening. */
export function createApp(deps: PasteAppDeps): PasteApp {
  const { config, database, logger, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const random = deps.randomInt ?? randomInt;
  const ownerId = config.OWNER_ID;

  const sessionSecret = config.SESSION_SECRET ?? 'paste-development-session-secret-not-for-production';
  const objects =
    deps.objects ??
    createObjectStore(storageSettingsOf(config), {
      publicUrl: `${deps.publicUrl.replace(/\/+$/, '')}${FILE_STORE_PATH}`,
      signingSecret: objectSigningSecret(sessionSecret),
    });
  const attachments = createAttachmentService({ db: database.pool, store: objects, logger });
  const pastes = createPasteService({
    db: database.pool,
    batchesInFlight: batchConcurrency(database.pool),
    settings,
    now,
    randomInt: random,
    bcryptRounds: deps.bcryptRounds ?? 10,
    publicUrl: deps.publicUrl,
    attachments,
  });
  // Lists and statistics read from the replica when there is one (database.reads).
  const moderation = createModerationService({ db: database.reads });
  const apiKeys = createApiKeyService({ db: database.pool });
  const stats = createStatsService({ db: database.reads });
  const uploadStore =
    deps.uploadsIn === 'database'
      ? databaseUploadStore(database.pool, deps.uploadDir)
      : folderUploadStore(deps.uploadDir, logger);
  const uploads = createUploadService({ store: uploadStore, settings, now, randomInt: random });
  const auth = createAuth({
    pool: database.pool,
    sessionSecret,
    sessionTtlMs: config.PASTE_SESSION_TTL_HOURS * 3_600_000,
    secureCookies: config.NODE_ENV === 'production' || deps.publicUrl.startsWith('https:'),
    cookieName: SESSION_COOKIE,
    sessionTable: sessionTableName,
    publicUrl: deps.publicUrl,
    oauth: deps.oauth,
    trustsProxy: trustsAProxy(config.TRUST_PROXY),
    // New anonymous sessions (sign-in's OAuth state, the paste form's first CSRF token) per IP.
    sessionStartLimiter: createRateLimiter({
      name: `${deps.rateLimitName ?? 'paste'}:session-start`,
      redis: deps.redis,
      message: RATE_LIMIT_MESSAGE,
      current: () => ({ limit: config.SESSION_START_LIMIT, windowMs: SESSION_START_WINDOW_MS }),
    }).middleware,
    warn: (message) => logger.warn(message),
  });
  const guards = createGuards({
    auth,
    settings,
    apiKeys,
    ownerId,
    redis: deps.redis,
    rateLimitName: deps.rateLimitName,
  });

  // The paste routes first: they carry nearly all the traffic, and every route passed on the way costs.
  const features: FeatureModule[] = [
    { name: 'health', stage: 'sessionless', routes: healthRouteDeclarations(database.pool) },
    attachmentsModule({ service: attachments, logger, queue: deps.jobs }),
    ...pastesModules({
      service: pastes,
      settings,
      guards,
      now,
    }),
    creatorModule({ service: pastes, settings, guards, isOwner: createOwnerCheck({ auth, apiKeys, ownerId }), now }),
    moderationModule({ service: moderation, guards }),
    { name: 'auth', routes: auth.routeDeclarations },
    ...pagesModules({ settings, stats, apiKeys, moderation, guards, now }),
    settingsModule({ settings, guards }),
    apiKeysModule({ service: apiKeys, guards }),
    statsModule({ service: stats, guards }),
    ...uploadsModules({ service: uploads, guards, store: uploadStore }),
    autoDeleteModule({ pastes, settings, logger, queue: deps.jobs }),
  ];
  const modules = [...features, ...apiDocsModules(features)];

  const app = express();
  const views = createViews({ folders: [viewsDir], appLocalesDir: localesDir });
  useViews(app, views);
  // In the visitor's language: the request's locals (languages()) carry it.
  const errorPage = (req: Request, status: number, message: string) =>
    views.render('errors/error', { ...req.res?.locals, ...errorData(settings.get(), status, message) });
  // Pages change with every view (the count) and say no-store; hashing each body for an ETag is wasted work.
  app.set('etag', false);
  // Tests hold every JSON answer to the schema its route declares (the API description); a
  // plain-text route's refusals are plain text.
  const mountOptions: MountOptions = {
    checkResponses: config.NODE_ENV === 'test',
    refusals: { text: plainTextRefusal },
  };
  // The visitor's language, before everything that renders a page (the hot lane included), and
  // the language switcher's /language.
  app.use(languages({ appLocalesDir: localesDir, isPage: pagePath }));
  // POST /api/paste parses its own body, sized by maxPasteSize (in the route's `before`).
  commonMiddleware(app, {
    logger,
    bodyLimit: '1mb',
    trustProxy: config.TRUST_PROXY,
    ownBodyParser: isPastePost,
    readYourWrites: readYourWrites({ onPrimary: database.reads.onPrimary, hasSession: hasSessionCookie }),
    // Creating and reading pastes without a session: straight after the headers and the log line.
    hotLane: hotLane(modules, mountOptions),
  });
  // The other pages under /paste/ (the creator's, the delete page) need no session for a visitor
  // without a cookie either: the session machinery (a new session id, passport) would be a large
  // share of such a request. Creating and reading pastes without one never get here (hot lane).
  const sessions = Router().use(...auth.session, viewerLocals(ownerId));
  const session: RequestHandler = (req, res, next) => {
    if (req.method === 'GET' && req.path.startsWith('/paste/') && !hasSessionCookie(req)) return next();
    sessions(req, res, next);
  };
  // Static files and session-free routes first (no session lookup, no rate limit), then the
  // session, then the routes: the hot ones first (a request with a session cookie), all in one
  // table so that OPTIONS lists every method a path has.
  mountStage(app, modules, 'sessionless', mountOptions);
  app.use(session);
  app.use(mountRoutes([...routesAt(modules, 'hotPath'), ...routesAt(modules, 'app')], mountOptions));

  app.use(apiNotFound);
  // A command-line create (text/plain) gets its errors as plain text.
  app.use(plainTextErrors(logger));
  // Every other unknown path, whatever the method: the HTML page, never Express's "Cannot GET".
  app.use((req, res) => {
    res
      .status(404)
      .type('html')
      .send(errorPage(req, 404, 'Page not found'));
  });
  app.use(
    createErrorHandler({
      successFlag: false,
      logger,
      // People get readable pages; /api, /auth and programs posting to /verify get JSON, unless a
      // browser navigates there (a sign-in link, a download link): then the page as well.
      renderHtml: (req, status, message) => {
        if (!pagePath(req) && !wantsHtmlErrorPage(req)) return undefined;
        if (req.method !== 'GET' && req.method !== 'HEAD' && req.accepts(['json', 'html']) !== 'html') return undefined;
        return errorPage(req, status, message);
      },
    }),
  );

  return {
    app,
    auth,
    pastes,
    attachments,
    modules,
    async close() {
      guards.close();
      await closeModules(modules);
      await auth.close();
    },
  };
}

/**
 * The hot routes for requests without a session cookie (`commonMiddleware`'s hot lane, right
 * after the security headers and the request log); any other request, and one they do not
 * answer, goes on.
 */
function hotLane(modules: readonly FeatureModule[], options: MountOptions): RequestHandler {
  const table = mountRoutes(routesAt(modules, 'hotPath'), options);
  return (req, res, next) => (hasSessionCookie(req) ? next() : table(req, res, next));
}

const isPastePost = (req: Request) => req.method === 'POST' && req.path === '/api/paste';
