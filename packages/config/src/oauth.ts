import type { Config } from './load-config.js';

/** The variables that configure sign-in, in the order a person fills them in. */
export const OAUTH_VARIABLES = [
  'OAUTH_AUTHORIZATION_URL',
  'OAUTH_TOKEN_URL',
  'OAUTH_USERINFO_URL',
  'OAUTH_CLIENT_ID',
  'OAUTH_CLIENT_SECRET',
] as const;

export type OAuthConfig = Pick<
  Config,
  | 'OAUTH_AUTHORIZATION_URL'
  | 'OAUTH_TOKEN_URL'
  | 'OAUTH_USERINFO_URL'
  | 'OAUTH_CLIENT_ID'
  | 'OAUTH_CLIENT_SECRET'
  | 'OAUTH_SCOPE'
  | 'OAUTH_ID_FIELD'
  | 'OAUTH_USERNAME_FIELD'
>;

/**
 * The identity provider the configuration names (structurally `OAuthSettings` of @app/auth), or
 * undefined without OAUTH_CLIENT_ID. loadConfig already refused a client id without the three URLs.
 */
export function oauthSettingsOf(config: OAuthConfig) {
  if (
    !config.OAUTH_CLIENT_ID ||
    !config.OAUTH_AUTHORIZATION_URL ||
    !config.OAUTH_TOKEN_URL ||
    !config.OAUTH_USERINFO_URL
  )
    return undefined;
  return {
    authorizationURL: config.OAUTH_AUTHORIZATION_URL,
    tokenURL: config.OAUTH_TOKEN_URL,
    userInfoURL: config.OAUTH_USERINFO_URL,
    clientID: config.OAUTH_CLIENT_ID,
    clientSecret: config.OAUTH_CLIENT_SECRET ?? '',
    scope: config.OAUTH_SCOPE,
    idField: config.OAUTH_ID_FIELD,
    usernameField: config.OAUTH_USERNAME_FIELD,
  };
}

/**
 * Whether a service started alone runs the local development provider itself: no provider is
 * configured, outside production, and DEV_IDP_ENABLED (`npm start` configures one it started).
 */
export function startsDevelopmentProvider(config: Config): boolean {
  return !oauthSettingsOf(config) && config.NODE_ENV !== 'production' && config.DEV_IDP_ENABLED;
}

/** What to do when no identity provider is configured: said in the start-up log and by every sign-in route. */
export function signInSetupHint(callbackUrl: string): string {
  return (
    `Sign-in is not configured: set ${OAUTH_VARIABLES.slice(0, -1).join(', ')} and ${OAUTH_VARIABLES.at(-1)} ` +
    `(see .env.example), and register ${callbackUrl} as the redirect (callback) URL at your identity provider.`
  );
}
