/** The signed-in user as the app sees it (`req.user`) and as passport keeps it in the session. */
export interface SessionUser {
  id: string;
  username: string;
}

/** How to reach the OAuth 2.0 provider and read its user-info answer. */
export interface OAuthSettings {
  authorizationURL: string;
  tokenURL: string;
  userInfoURL: string;
  clientID: string;
  clientSecret: string;
  scope: string;
  /** User-info field holding the user id; `sub` is tried when it is absent. */
  idField: string;
  /** User-info field holding the username; then `preferred_username`, `login`, `name`, else the id. */
  usernameField: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // passport types `req.user` as Express.User: make it our SessionUser everywhere.
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface User extends SessionUser {}
  }
}

declare module 'express-session' {
  interface SessionData {
    /** Written by passport at sign-in (`req.session.passport.user`). */
    passport?: { user?: SessionUser };
    /** Messages a page keeps for the page its redirect leads to (shown there once). */
    flash?: Array<{ type: 'success' | 'error'; text: string }>;
    /** A secret a page just made (e.g. a webhook endpoint's), kept until the page that shows it once; `for` names what it belongs to. */
    oneTimeSecret?: { for: string; secret: string };
    /** The page a guard sent to sign in from (a path on this site); the callback returns there. */
    returnTo?: string;
  }
}
