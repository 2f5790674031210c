import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import passport from 'passport';
import type pg from 'pg';
import { OAUTH_VARIABLES, signInSetupHint } from '@app/config';
import { appError, defineRoute, mountRoutes, publicAccess, type AnyRoute } from '@app/http';
import { z } from 'zod';
import { createCsrf } from './csrf.js';
import { callbackErrorCode, ProviderStrategy } from './oauth-strategy.js';
import { createSessionMiddleware } from './session.js';
import type { OAuthSettings, SessionUser } from './types.js';

export interface AuthOptions {
  pool: pg.Pool;
  sessionSecret: string;
  sessionTtlMs: number;
  secureCookies: boolean;
  /** 'paste.sid' | 'license.sid' */
  cookieName: string;
  /** The service's own session table ('paste_session' | 'license_session'), made by its migrations. */
  sessionTable: string;
  /** The app's public base URL; the provider redirects back to `${publicUrl}/auth/idp/callback`. */
  publicUrl: string;
  /**
   * The identity provider. Without one the service still runs, and the sign-in routes answer
   * 503 naming the OAUTH_* variables to set and the callback URL to register.
   */
  oauth: OAuthSettings | undefined;
  onSignIn?: (user: SessionUser, req: Request) => Promise<void>;
  onSignOut?: (user: SessionUser, req: Request) => Promise<void>;
  /**
   * Counts, per address, what stores a new session row for an anonymous visitor: every
   * `GET /auth/idp` (it keeps the OAuth state) and each `GET /api/csrf-token` whose session holds
   * no token yet. The services build it with `SESSION_START_LIMIT` per `SESSION_START_WINDOW_MS` (a flood of either from one
   * address then gets 429 instead of filling the session table).
   */
  sessionStartLimiter?: RequestHandler;
  /**
   * Whether a proxy is trusted (`TRUST_PROXY`): its `X-Forwarded-Proto: https` then makes a
   * request secure, so a Secure cookie can be set behind a TLS-terminating proxy.
   */
  trustsProxy?: boolean;
  /** Hears, at start and at each failed sign-in, that the Secure session cookie cannot be set over plain http. */
  warn?: (message: string) => void;
}

export interface Auth {
  /** express-session (the service's session table) + passport: `app.use(...auth.session)`. */
  session: RequestHandler[];
  /** GET /auth/idp, /auth/idp/callback, /auth/logout, /auth/status, /api/csrf-token, mounted. */
  routes: RequestHandler;
  /** The same routes as declarations, for a service that mounts and documents its routes itself. */
  routeDeclarations: AnyRoute[];
  /** CSRF check for POST/PUT/PATCH/DELETE; skips requests carrying a bearer token or an API key. */
  csrf: RequestHandler;
  hasValidCsrfToken(req: Request): boolean;
  /** The session's CSRF token (created on first use), for a page's forms to carry in the `_csrf` field. */
  csrfToken(this: void, req: Request): string;
  /** Stops the session store's pruning timer (the pool stays the caller's). */
  close(): Promise<void>;
}

/**
 * The window of the limit on new anonymous sessions per address (`SESSION_START_LIMIT` of them,
 * 30 by default). A person needs one session per browser (the cookie is then sent back, and
 * counts no more), so only floods meet it.
 */
export const SESSION_START_WINDOW_MS = 60_000;

export function createAuth(options: AuthOptions): Auth {
  const sessions = createSessionMiddleware(options);
  // Browsers keep a Secure cookie only from https: over plain http the OAuth state never makes it
  // into a session, and every sign-in fails. Said at start, and again on the failure page.
  if (options.secureCookies && options.publicUrl.startsWith('http:') && !options.trustsProxy) {
    options.warn?.(insecurePublicUrlWarning(options.publicUrl));
  }
  const cookieNeedsHttps = (req: Request) => options.secureCookies && !req.secure;
  const csrf = createCsrf();
  // A Passport instance of its own: two apps in one process (tests, `npm start`) never share strategies.
  // With passport's Express framework (the default) authenticate() and session() make middlewares; its types leave them any.
  const authenticator = new passport.Passport() as passport.Authenticator<RequestHandler, RequestHandler>;
  const callbackUrl = callbackUrlOf(options.publicUrl);
  if (options.oauth) authenticator.use('oauth2', new ProviderStrategy(options.oauth, callbackUrl));
  // No user table: the session keeps the user itself, which is what /auth/status shows as
  // `session.passport.user`.
  authenticator.serializeUser((user: Express.User, done) => done(null, { id: user.id, username: user.username }));
  authenticator.deserializeUser((stored: unknown, done) => done(null, isSessionUser(stored) ? stored : false));

  const limiter = options.sessionStartLimiter ?? ((_req: Request, _res: Response, next: NextFunction) => next());
  // Only a visitor whose session would be stored for the token counts; a signed-in person, or a
  // session that holds its token already, passes.
  const newTokenLimiter: RequestHandler = (req, res, next) =>
    req.user || req.session?.csrfToken !== undefined ? next() : limiter(req, res, next);
  // Without a provider, sign-in answers 503 naming what to configure, before any limit counts.
  const notConfigured: RequestHandler[] = options.oauth
    ? []
    : [
        (_req, _res, next) => {
          next(
            appError('SIGN_IN_NOT_CONFIGURED', {
              message: signInSetupHint(callbackUrl),
              extra: { variables: [...OAUTH_VARIABLES], callbackUrl },
            }),
          );
        },
      ];
  const signInSteps = [...notConfigured, limiter];
  const redirect = { description: 'Redirect (to the identity provider, or back to the site)' };
  const tooManyAnswer = { description: 'Too many new sessions from this address (30 a minute)' };
  const notConfiguredAnswer = { description: 'Sign-in is not configured: names the OAUTH_* variables to set' };

  const routeDeclarations: AnyRoute[] = [
    defineRoute({
      method: 'get',
      path: '/auth/idp',
      summary: 'Start signing in with the identity provider',
      tags: ['auth'],
      guard: publicAccess,
      // A browser's navigation, answered with a redirect: internal to the API description.
      answer: 'redirect',
      before: signInSteps,
      query: z.object({
        login_hint: z
          .string()
          .transform((hint) => hint.slice(0, 200))
          .optional()
          .catch(undefined),
        // The page to come back to (a path on this site): kept with the OAuth state, so a guard
        // that sends a stranger here stores no session of its own.
        returnTo: z.string().max(2000).optional().catch(undefined),
      }),
      responses: { 302: redirect, 429: tooManyAnswer, 503: notConfiguredAnswer },
      handler: ({ query, req, res }) => {
        const returnTo = localPath(query.returnTo);
        if (returnTo !== undefined) req.session.returnTo = returnTo;
        return runMiddleware(
          authenticator.authenticate('oauth2', { loginHint: query.login_hint } as passport.AuthenticateOptions),
          req,
          res,
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/idp/callback',
      summary: 'Where the identity provider sends people back',
      tags: ['auth'],
      guard: publicAccess,
      // A browser's navigation, answered with a redirect: internal to the API description.
      answer: 'redirect',
      // Not counted: without the state that /auth/idp stored (and counted), no session is made.
      before: notConfigured,
      query: z.object({ code: z.string().optional().catch(undefined), error: z.string().optional().catch(undefined) }),
      responses: { 302: redirect, 503: notConfiguredAnswer },
      handler: ({ query, req, res }) => {
        // Without a code (or the provider's error) passport-oauth2 would start a new authorization;
        // a callback that carries neither is a failed sign-in.
        if (query.code === undefined && query.error === undefined) return res.redirect('/?error=auth_failed');
        return new Promise<void>((resolve, reject) => {
          authenticator.authenticate('oauth2', (error: unknown, user: SessionUser | false) => {
            // Failures of the sign-in itself go back to the homepage with a code; failures of our own
            // storage (below) are server errors.
            if (error) return resolve(res.redirect(`/?error=${callbackErrorCode(error)}`));
            if (!user) {
              // The state was not found: over plain http a Secure cookie never came back to keep it in.
              if (cookieNeedsHttps(req)) {
                options.warn?.(
                  `A sign-in failed: it came over plain http, and the session cookie is Secure (kept by browsers only from https). ${httpsRemedy}`,
                );
                return resolve(res.redirect('/?error=https_required'));
              }
              return resolve(res.redirect('/?error=auth_failed')); // bad or missing state, access denied
            }
            // passport regenerates the session here (a new id, nothing kept from the anonymous one):
            // the page that sent the visitor to sign in is read first.
            const returnTo = localPath(req.session.returnTo) ?? '/';
            req.logIn(user, (loginError) => {
              if (loginError) return reject(asError(loginError));
              Promise.resolve(options.onSignIn?.(user, req)).then(() => resolve(res.redirect(returnTo)), reject);
            });
          })(req, res, reject);
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/logout',
      summary: 'Sign out',
      tags: ['auth'],
      guard: publicAccess,
      // A browser's navigation, answered with a redirect: internal to the API description.
      answer: 'redirect',
      responses: { 302: { description: 'Signed out; back to the site' } },
      handler: async ({ req, res }) => {
        if (req.user) await options.onSignOut?.(req.user, req);
        await new Promise<void>((resolve, reject) =>
          req.session.destroy((error) => (error ? reject(asError(error)) : resolve())),
        );
        res.clearCookie(options.cookieName, sessions.cookieOptions);
        res.redirect('/');
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/status',
      summary: 'Who is signed in',
      tags: ['auth'],
      guard: publicAccess,
      responses: { 200: { description: 'The signed-in user, or none', schema: authStatusSchema } },
      handler: ({ req, res }) => {
        const user = req.user ? { id: req.user.id, username: req.user.username } : null;
        res.set('Cache-Control', 'no-store');
        return {
          authenticated: user !== null,
          user,
          session: user ? { passport: { user: req.session.passport?.user ?? user } } : {},
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/csrf-token',
      summary: "The session's CSRF token (send it in X-CSRF-Token)",
      description:
        'An anonymous visitor gets a token kept in a new session (the cookie comes with it); a new one ' +
        'counts against the per-address limit of new sessions (30 a minute, shared with /auth/idp).',
      tags: ['auth'],
      guard: publicAccess,
      before: [newTokenLimiter],
      responses: {
        200: { description: 'The token', schema: z.object({ csrfToken: z.string() }) },
        429: tooManyAnswer,
      },
      handler: async ({ req, res }) => {
        const csrfToken = csrf.tokenFor(req);
        // Saved before answering, so an anonymous visitor's next request finds the same token.
        await new Promise<void>((resolve, reject) =>
          req.session.save((error) => (error ? reject(asError(error)) : resolve())),
        );
        res.set('Cache-Control', 'no-store');
        return { csrfToken };
      },
    }),
  ];

  return {
    session: [sessions.handler, authenticator.initialize(), authenticator.session()],
    routes: mountRoutes(routeDeclarations),
    routeDeclarations,
    csrf: csrf.middleware,
    hasValidCsrfToken: csrf.hasValidCsrfToken,
    csrfToken: csrf.tokenFor,
    close: sessions.close,
  };
}

const httpsRemedy =
  'Serve it over https with its public URL (PASTE_PUBLIC_URL, LICENSE_PUBLIC_URL) set to the https:// address; ' +
  "behind a TLS-terminating proxy, set TRUST_PROXY so that the proxy's X-Forwarded-Proto: https is trusted.";

/** The start-up warning of a service whose Secure session cookie cannot be set at its public URL. */
function insecurePublicUrlWarning(publicUrl: string): string {
  return (
    `Sign-in cookies need https: the session cookie is Secure in production, browsers keep a Secure cookie only from https, ` +
    `and the public URL ${publicUrl} is plain http with no TRUST_PROXY, so every sign-in will fail. ${httpsRemedy}`
  );
}

/** Where the provider sends people back to: register this URL at the provider. */
export function callbackUrlOf(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/auth/idp/callback`;
}

/** A path on this site (`/admin?q=x`), never another origin (`//evil.example`, `/\\evil.example`). */
function localPath(value: unknown): string | undefined {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) && !hasControlCharacter(value) ? value : undefined;
}

/** A character below U+0020 (a header or a log line could be split by one). */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20) return true;
  return false;
}

const sessionUserSchema = z.object({ id: z.string(), username: z.string() });
const authStatusSchema = z.object({
  authenticated: z.boolean(),
  user: sessionUserSchema.nullable(),
  session: z.object({ passport: z.object({ user: sessionUserSchema }).optional() }),
});

/**
 * Runs a middleware (passport's) as a handler's answer: done when it sends, failed when it
 * passes an error on. Passing on without an error means it did not answer: a 404 like any
 * path nobody serves.
 */
function runMiddleware(middleware: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    res.once('finish', () => resolve());
    res.once('close', () => resolve());
    middleware(req, res, (error?: unknown) => reject(asError(error ?? appError('NOT_FOUND'))));
  });
}

/** What a callback failed with, as an Error (passport's and express-session's are already). */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function isSessionUser(value: unknown): value is SessionUser {
  const user = value as SessionUser | undefined;
  return typeof user?.id === 'string' && typeof user.username === 'string';
}
