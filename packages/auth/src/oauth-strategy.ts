import OAuth2Strategy from 'passport-oauth2';
import type { OAuthSettings, SessionUser } from './types.js';

/** The provider answered 429 (token or user-info endpoint). */
export class ProviderRateLimitedError extends Error {
  constructor(step: string) {
    super(`The identity provider rate-limited the ${step} request`);
    this.name = 'ProviderRateLimitedError';
  }
}

/** The user-info answer names no user id. */
export class NoUserError extends Error {
  constructor() {
    super('The identity provider returned no user id');
    this.name = 'NoUserError';
  }
}

const USER_INFO_TIMEOUT_MS = 10_000;

/**
 * passport-oauth2 with the three things it leaves to subclasses: forwarding `login_hint`,
 * telling a 429 apart from other token endpoint failures, and loading the user from the
 * provider's user-info URL. State is always on (passport-oauth2's session state store).
 */
export class ProviderStrategy extends OAuth2Strategy {
  constructor(
    private readonly settings: OAuthSettings,
    callbackURL: string,
  ) {
    super(
      {
        authorizationURL: settings.authorizationURL,
        tokenURL: settings.tokenURL,
        clientID: settings.clientID,
        clientSecret: settings.clientSecret,
        callbackURL,
        scope: settings.scope || undefined,
        state: true,
      },
      (_accessToken: string, _refreshToken: string, profile: SessionUser, done: OAuth2Strategy.VerifyCallback) =>
        done(null, profile),
    );
    this.name = 'oauth2';
  }

  override authorizationParams(options: { loginHint?: string }): object {
    return options.loginHint ? { login_hint: options.loginHint } : {};
  }

  override parseErrorResponse(body: string, status: number): Error | null {
    if (status === 429) return new ProviderRateLimitedError('token');
    return super.parseErrorResponse(body, status);
  }

  override userProfile(accessToken: string, done: (err?: unknown, profile?: SessionUser) => void): void {
    fetchUser(this.settings, accessToken).then(
      (user) => done(null, user),
      (error: unknown) => done(error),
    );
  }
}

async function fetchUser(settings: OAuthSettings, accessToken: string): Promise<SessionUser> {
  const response = await fetch(settings.userInfoURL, {
    headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json', 'User-Agent': 'app-auth' },
    signal: AbortSignal.timeout(USER_INFO_TIMEOUT_MS),
  });
  if (response.status === 429) throw new ProviderRateLimitedError('user-info');
  if (!response.ok) throw new Error(`User-info request failed with status ${response.status}`);
  const info: unknown = await response.json();
  const user = userFromInfo(info, settings);
  if (!user) throw new NoUserError();
  return user;
}

/** Reads id and username from a user-info object, with the documented fallbacks. */
export function userFromInfo(
  info: unknown,
  settings: Pick<OAuthSettings, 'idField' | 'usernameField'>,
): SessionUser | undefined {
  if (!info || typeof info !== 'object') return undefined;
  const record = info as Record<string, unknown>;
  const id = firstText(record, [settings.idField, 'sub']);
  if (!id) return undefined;
  const username = firstText(record, [settings.usernameField, 'preferred_username', 'login', 'name']) ?? id;
  return { id, username };
}

function firstText(record: Record<string, unknown>, fields: string[]): string | undefined {
  for (const field of fields) {
    const value = record[field];
    // Some providers (GitHub) send numeric ids.
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** Which `/?error=` a failed callback ends at. */
export function callbackErrorCode(error: unknown): 'rate_limited' | 'no_user' | 'auth_failed' {
  if (error instanceof NoUserError) return 'no_user';
  if (error instanceof ProviderRateLimitedError) return 'rate_limited';
  const details = error as { code?: unknown; oauthError?: { statusCode?: unknown } } | undefined;
  // A token endpoint 429 whose body passport-oauth2 could not parse.
  if (details?.oauthError?.statusCode === 429) return 'rate_limited';
  // RFC 6749 §4.1.2.1: the provider's own "overloaded, try later" on the authorization redirect.
  if (details?.code === 'temporarily_unavailable') return 'rate_limited';
  return 'auth_failed';
}
