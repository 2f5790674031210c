import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import passport from 'passport';
import type pg from 'pg';
import { OAUTH_VARIABLES, signInSetupHint } from '@app/config';
import { HttpError } from '@app/http';
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
  /** The app's public base URL; the provider redirects back to `${publicUrl}/auth/idp/callback`. */
  publicUrl: string;
  /**
   * The identity provider. Without one the service still runs, and the sign-in routes answer
   * 503 naming the OAUTH_* variables to set and the callback URL to register.
   */
  oauth: OAuthSettings | undefined;
  onSignIn?: (user: SessionUser, req: Request) => Promise<void>;
  onSignOut?: (user: SessionUser, req: Request) => Promise<void>;
  /** Optional limiter in front of /auth/idp and /auth/idp/callback. */
  signInLimiter?: RequestHandler;
}

export interface Auth {
  /** express-session (table "session") + passport: `app.use(...auth.session)`. */
  session: RequestHandler[];
  /** GET /auth/idp, /auth/idp/callback, /auth/logout, /auth/status, /api/csrf-token. */
  routes: Router;
  /** CSRF check for POST/PUT/PATCH/DELETE; skips requests carrying a bearer token or an API key. */
  csrf: RequestHandler;
  hasValidCsrfToken(req: Request): boolean;
  /** Stops the session store's pruning timer (the pool stays the caller's). */
  close(): Promise<void>;
}

export function createAuth(options: AuthOptions): Auth {
  const sessions = createSessionMiddleware(options);
  const csrf = createCsrf();
  // A Passport instance of its own: two apps in one process (tests, `npm start`) never share strategies.
  const authenticator = new passport.Passport();
  const callbackUrl = callbackUrlOf(options.publicUrl);
  if (options.oauth) authenticator.use('oauth2', new ProviderStrategy(options.oauth, callbackUrl));
  // No user table: the session keeps the user itself, which is what /auth/status shows as
  // `session.passport.user`.
  authenticator.serializeUser((user: Express.User, done) => done(null, { id: user.id, username: user.username }));
  authenticator.deserializeUser((stored: unknown, done) => done(null, isSessionUser(stored) ? stored : false));

  const limiter = options.signInLimiter ?? ((_req: Request, _res: Response, next: NextFunction) => next());
  const routes = Router();

  if (!options.oauth) {
    routes.get(['/auth/idp', '/auth/idp/callback'], (_req, _res, next) => {
      next(new HttpError(503, signInSetupHint(callbackUrl), undefined, { variables: [...OAUTH_VARIABLES], callbackUrl }));
    });
  }

  routes.get('/auth/idp', limiter, (req, res, next) => {
    const hint = typeof req.query.login_hint === 'string' ? req.query.login_hint.slice(0, 200) : undefined;
    authenticator.authenticate('oauth2', { loginHint: hint } as passport.AuthenticateOptions)(req, res, next);
  });

  routes.get('/auth/idp/callback', limiter, (req, res, next) => {
    // Without a code (or the provider's error) passport-oauth2 would start a new authorization;
    // a callback that carries neither is a failed sign-in.
    if (typeof req.query.code !== 'string' && typeof req.query.error !== 'string') return res.redirect('/?error=auth_failed');
    authenticator.authenticate('oauth2', (error: unknown, user: SessionUser | false) => {
      // Failures of the sign-in itself go back to the homepage with a code; failures of our own
      // storage (below) are server errors.
      if (error) return res.redirect(`/?error=${callbackErrorCode(error)}`);
      if (!user) return res.redirect('/?error=auth_failed'); // bad or missing state, access denied
      // passport regenerates the session here (a new id, nothing kept from the anonymous one).
      req.logIn(user, (loginError) => {
        if (loginError) return next(loginError);
        Promise.resolve(options.onSignIn?.(user, req)).then(() => res.redirect('/'), next);
      });
    })(req, res, next);
  });

  routes.get('/auth/logout', async (req, res, next) => {
    try {
      if (req.user) await options.onSignOut?.(req.user, req);
      req.session.destroy((error) => {
        if (error) return next(error);
        res.clearCookie(options.cookieName, sessions.cookieOptions);
        res.redirect('/');
      });
    } catch (error) {
      next(error);
    }
  });

  routes.get('/auth/status', (req, res) => {
    const user = req.user ? { id: req.user.id, username: req.user.username } : null;
    res.set('Cache-Control', 'no-store');
    res.json({
      authenticated: user !== null,
      user,
      session: user ? { passport: { user: req.session.passport?.user ?? user } } : {},
    });
  });

  routes.get('/api/csrf-token', (req, res, next) => {
    const csrfToken = csrf.tokenFor(req);
    // Saved before answering, so an anonymous visitor's next request finds the same token.
    req.session.save((error) => {
      if (error) return next(error);
      res.set('Cache-Control', 'no-store');
      res.json({ csrfToken });
    });
  });

  return {
    session: [sessions.handler, authenticator.initialize(), authenticator.session()],
    routes,
    csrf: csrf.middleware,
    hasValidCsrfToken: csrf.hasValidCsrfToken,
    close: sessions.close,
  };
}

/** Where the provider sends people back to: register this URL at the provider. */
export function callbackUrlOf(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/auth/idp/callback`;
}

function isSessionUser(value: unknown): value is SessionUser {
  const user = value as SessionUser | undefined;
  return typeof user?.id === 'string' && typeof user.username === 'string';
}
