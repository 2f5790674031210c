import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { explainListenError } from '@app/config';
import type {
  OAuth2Service,
  MutableRedirectUri,
  MutableResponse,
  MutableToken,
  TokenRequestIncomingMessage,
} from 'oauth2-mock-server';
import { renderAuthorizePage } from './authorize-page.js';

export { escapeHtml } from './authorize-page.js';
/** The shapes tests change in the service's events (`beforeResponse`, `beforeUserinfo`, ...). */
export type { MutableResponse, MutableRedirectUri, MutableToken } from 'oauth2-mock-server';

/** Fixed credentials: the provider only ever runs locally, so there is nothing to keep secret. */
export const DEV_CLIENT_ID = 'dev-client';
export const DEV_CLIENT_SECRET = 'dev-client-secret';

/** Structurally the `OAuthSettings` of `@app/auth` (kept here so dev-idp does not depend on auth). */
export interface DevIdpOAuthSettings {
  authorizationURL: string;
  tokenURL: string;
  userInfoURL: string;
  clientID: string;
  clientSecret: string;
  scope: string;
  idField: string;
  usernameField: string;
}

export interface DevIdp {
  /** Base URL the provider listens on, e.g. http://127.0.0.1:9000. */
  url: string;
  /** Ready to hand to `createAuth({ oauth })`. */
  oauth: DevIdpOAuthSettings;
  /**
   * The underlying oauth2-mock-server service. Tests use its events to make one answer
   * misbehave, e.g. `service.once('beforeUserinfo', (res) => { res.statusCode = 429; })`.
   */
  service: OAuth2Service;
  stop(): Promise<void>;
}

export interface DevIdpOptions {
  /** Default 9000; tests pass 0. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /**
   * Base URL browsers reach the provider at, when it differs from the one the services use
   * (e.g. inside docker compose). Only the authorization URL uses it.
   */
  publicUrl?: string;
}

const CODE_TTL_MS = 5 * 60_000;
const TOKEN_TTL_MS = 60 * 60_000;
const MAX_USER_ID_LENGTH = 200;

interface IssuedCode {
  userId: string;
  redirectUri: string;
  expiresAt: number;
}
interface IssuedToken {
  userId: string;
  expiresAt: number;
}

let signingKeyOnce: Promise<Record<string, unknown>> | undefined;

/**
 * The provider's signing key, made once per process. ES256: an RSA key pair cost 150–400 ms of
 * every `npm start` and of nearly every test file, an EC key under a millisecond; the services
 * read the user from the user-info answer and never check a token's signature.
 */
function signingKey(): Promise<Record<string, unknown>> {
  signingKeyOnce ??= loadMockServer()
    .then(({ OAuth2Issuer }) => new OAuth2Issuer().keys.generate('ES256'))
    .then((jwk) => ({ ...jwk }));
  return signingKeyOnce;
}

/**
 * oauth2-mock-server, loaded when a provider starts: a service that imports this package but
 * signs in elsewhere should not hold it (some 15 MB, docs/performance.md).
 */
const loadMockServer = () => import('oauth2-mock-server');

/**
 * A local OAuth 2.0 provider (authorization code flow) for development and tests, built on
 * oauth2-mock-server, which does the protocol and token work. What this adds: a sign-in form
 * (or `login_hint`) choosing the user, codes bound to that user and redirect URI and usable once,
 * client credentials checked, and a user-info answer for the user the access token was issued to.
 */
export async function startDevIdp(options: DevIdpOptions = {}): Promise<DevIdp> {
  return (await listenDevIdp(options)).started;
}

/** A provider whose port is bound; `started` answers once it serves (its mock server loaded). */
export interface ListeningDevIdp {
  url: string;
  oauth: DevIdpOAuthSettings;
  started: Promise<DevIdp>;
}

/**
 * Binds the provider's port first, so that a port in use fails at once, then loads the mock
 * server (a few hundred milliseconds) while the caller goes on: `npm start` starts the services
 * meanwhile. A request that arrives before the mock server is loaded waits for it.
 */
export async function listenDevIdp(options: DevIdpOptions = {}): Promise<ListeningDevIdp> {
  let serve: http.RequestListener | undefined;
  const waiting: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    if (serve) serve(req, res);
    else waiting.push(() => serve!(req, res));
  });
  const wanted = options.port ?? 9000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(explainListenError(error, wanted, 'DEV_IDP_PORT')));
    server.listen(wanted, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(options.host ?? '127.0.0.1')}:${port}`;
  const publicUrl = (options.publicUrl ?? url).replace(/\/$/, '');
  const oauth: DevIdpOAuthSettings = {
    authorizationURL: `${publicUrl}/authorize`,
    tokenURL: `${url}/token`,
    userInfoURL: `${url}/userinfo`,
    clientID: DEV_CLIENT_ID,
    clientSecret: DEV_CLIENT_SECRET,
    scope: 'openid profile',
    idField: 'id',
    usernameField: 'username',
  };
  const stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  const started = mockProvider(url).then(
    ({ service, handle }) => {
      serve = handle;
      for (const run of waiting.splice(0)) run();
      return { url, service, oauth, stop };
    },
    async (error: unknown) => {
      await stop();
      throw error;
    },
  );
  // The caller awaits it; meanwhile a failure is not an unhandled rejection.
  started.catch(() => {});
  return { url, oauth, started };
}

/** The mock server, with this provider's rules on top, and the request handler serving both. */
async function mockProvider(url: string): Promise<{ service: OAuth2Service; handle: http.RequestListener }> {
  const { OAuth2Issuer, OAuth2Service } = await loadMockServer();
  const issuer = new OAuth2Issuer();
  await issuer.keys.add(await signingKey());
  const service = new OAuth2Service(issuer);
  const codes = new Map<string, IssuedCode>();
  const tokens = new Map<string, IssuedToken>();

  service.on('beforeAuthorizeRedirect', (redirect: MutableRedirectUri, req: http.IncomingMessage) => {
    const query = new URL(req.url ?? '/', 'http://idp').searchParams;
    const code = redirect.url.searchParams.get('code');
    const userId = query.get('login_hint')?.trim();
    if (code && userId) {
      // Codes never exchanged would otherwise pile up in a long-running dev server.
      forgetExpired(codes);
      codes.set(code, { userId, redirectUri: query.get('redirect_uri') ?? '', expiresAt: Date.now() + CODE_TTL_MS });
    }
  });

  // Runs for the access token and the id token, before the code is consumed below.
  service.on('beforeTokenSigning', (token: MutableToken, req: TokenRequestIncomingMessage) => {
    const issued = codes.get(String(req.body.code ?? ''));
    if (issued) token.payload.sub = issued.userId;
  });

  service.on('beforeResponse', (response: MutableResponse, req: TokenRequestIncomingMessage) => {
    const refuse = (statusCode: number, error: string, description: string) => {
      response.statusCode = statusCode;
      response.body = { error, error_description: description };
    };
    // The token request's form, read field by field: nothing is assumed about its shape.
    const form: unknown = req.body;
    const body: Record<string, unknown> =
      typeof form === 'object' && form !== null ? Object.fromEntries(Object.entries(form)) : {};
    const [clientId, clientSecret] = clientCredentials(req, body);
    if (clientId !== DEV_CLIENT_ID || clientSecret !== DEV_CLIENT_SECRET)
      return refuse(401, 'invalid_client', 'Unknown client or wrong secret');
    if (body.grant_type !== 'authorization_code')
      return refuse(400, 'unsupported_grant_type', 'Only the authorization code grant is offered');
    const code = typeof body.code === 'string' ? body.code : '';
    const issued = codes.get(code);
    codes.delete(code);
    if (!issued || issued.expiresAt < Date.now()) return refuse(400, 'invalid_grant', 'Unknown, used or expired code');
    if (issued.redirectUri !== body.redirect_uri)
      return refuse(400, 'invalid_grant', 'redirect_uri does not match the authorization request');
    const accessToken = (response.body as Record<string, unknown>).access_token;
    if (typeof accessToken === 'string')
      tokens.set(accessToken, { userId: issued.userId, expiresAt: Date.now() + TOKEN_TTL_MS });
    forgetExpired(codes);
    forgetExpired(tokens);
  });

  service.on('beforeUserinfo', (response: MutableResponse, req: http.IncomingMessage) => {
    const header = req.headers.authorization ?? '';
    const issued = header.startsWith('Bearer ') ? tokens.get(header.slice('Bearer '.length).trim()) : undefined;
    if (!issued || issued.expiresAt < Date.now()) {
      response.statusCode = 401;
      response.body = { error: 'invalid_token', error_description: 'Unknown or expired access token' };
      return;
    }
    const id = issued.userId;
    response.body = { sub: id, id, username: id, preferred_username: id };
  });

  issuer.url = url;
  const handle: http.RequestListener = (req, res) => {
    if (interceptAuthorize(req, res)) return;
    service.requestHandler(req, res);
  };
  return { service, handle };
}

/**
 * Answers GET /authorize itself when the request must not reach the mock (which would sign
 * anyone in as "johndoe"): a bad request, or no user chosen yet (the form). Returns false to let
 * the mock issue the code.
 */
function interceptAuthorize(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  const requestUrl = new URL(req.url ?? '/', 'http://idp');
  if (req.method !== 'GET' || requestUrl.pathname !== '/authorize') return false;
  const params = requestUrl.searchParams;
  const problem = describeBadRequest(params);
  if (problem) {
    sendHtml(res, 400, `<!doctype html><meta charset="utf-8"><title>Bad request</title><p>${problem}</p>`);
    return true;
  }
  const userId = params.get('login_hint')?.trim() ?? '';
  if (userId && userId.length <= MAX_USER_ID_LENGTH) return false;
  sendHtml(
    res,
    200,
    renderAuthorizePage(params, userId ? `The user id may have at most ${MAX_USER_ID_LENGTH} characters.` : undefined),
  );
  return true;
}

/** Fixed texts only: nothing from the request is echoed here. */
function describeBadRequest(params: URLSearchParams): string | undefined {
  if (params.get('client_id') !== DEV_CLIENT_ID) return 'Unknown client_id.';
  if (params.get('response_type') !== 'code') return 'Only response_type=code is supported.';
  try {
    const redirect = new URL(params.get('redirect_uri') ?? '');
    if (redirect.protocol !== 'http:' && redirect.protocol !== 'https:') return 'redirect_uri must be an http(s) URL.';
  } catch {
    return 'redirect_uri is missing or not a URL.';
  }
  return undefined;
}

function sendHtml(res: http.ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(html);
}

function clientCredentials(req: http.IncomingMessage, body: Record<string, unknown>): [unknown, unknown] {
  const header = req.headers.authorization ?? '';
  if (header.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    try {
      return [decodeURIComponent(decoded.slice(0, colon)), decodeURIComponent(decoded.slice(colon + 1))];
    } catch {
      return [undefined, undefined];
    }
  }
  return [body.client_id, body.client_secret];
}

function forgetExpired(entries: Map<string, { expiresAt: number }>): void {
  const now = Date.now();
  for (const [key, entry] of entries) if (entry.expiresAt < now) entries.delete(key);
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
