import connectPgSimple from 'connect-pg-simple';
import session from 'express-session';
import type { RequestHandler } from 'express';
import type pg from 'pg';

export interface SessionOptions {
  pool: pg.Pool;
  sessionSecret: string;
  sessionTtlMs: number;
  secureCookies: boolean;
  cookieName: string;
  /** The service's session table (`paste_session`, `license_session`), made by its migrations. */
  sessionTable: string;
}

export interface SessionMiddleware {
  handler: RequestHandler;
  cookieOptions: { path: string; httpOnly: boolean; sameSite: 'lax'; secure: boolean };
  close(this: void): Promise<void>;
}

/**
 * Sessions live in the app's own database (in its own table, created by the app's migrations),
 * so every instance behind a load balancer sees the same ones.
 */
export function createSessionMiddleware(options: SessionOptions): SessionMiddleware {
  const PgStore = connectPgSimple(session);
  const store = new PgStore({
    pool: options.pool,
    tableName: options.sessionTable,
    createTableIfMissing: false,
    // A session lasts sessionTtlMs from its creation, like its cookie (which is not rolled):
    // touching the row on every request would cost a write per request for nothing.
    disableTouch: true,
  });
  const cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: options.secureCookies };
  const handler = session({
    name: options.cookieName,
    secret: options.sessionSecret,
    store,
    resave: false,
    // Nothing is stored (and no cookie set) until something is put in the session: the OAuth
    // state at sign-in, a CSRF token, an unlocked paste.
    saveUninitialized: false,
    // With `secure`, express-session only sets the cookie on requests it sees as https
    // (`req.secure`): behind a TLS-terminating proxy the app must set `trust proxy`.
    cookie: { ...cookieOptions, maxAge: options.sessionTtlMs },
  });
  return {
    handler,
    cookieOptions,
    close: async () => {
      // eslint-disable-next-line @typescript-eslint/await-thenable -- connect-pg-simple's close() is async; its types say void.
      await store.close();
    },
  };
}
