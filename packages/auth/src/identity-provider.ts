import { oauthSettingsOf, signInSetupHint, startsDevelopmentProvider, OAUTH_VARIABLES, type Config } from '@app/config';
import { startDevIdp, type DevIdp } from '@app/dev-idp';
import type { Logger } from '@app/http';
import { callbackUrlOf } from './create-auth.js';
import type { OAuthSettings } from './types.js';

export interface IdentityProvider {
  /** undefined when none is configured: the service runs and its sign-in routes say what to set. */
  oauth: OAuthSettings | undefined;
  /** The local development provider, when one was started. */
  devIdp?: DevIdp;
}

/**
 * The identity provider a service signs people in with: the configured one (OAUTH_*); else,
 * outside production, a local development provider; else none, which the start-up log explains.
 */
export async function resolveIdentityProvider(
  config: Config,
  logger: Logger,
  publicUrl: string,
): Promise<IdentityProvider> {
  const configured = oauthSettingsOf(config);
  if (configured) return { oauth: configured };
  if (startsDevelopmentProvider(config)) {
    const devIdp = await startDevIdp({ port: config.DEV_IDP_PORT });
    logger.warn(
      { url: devIdp.url },
      '!!! DEVELOPMENT IDENTITY PROVIDER: anyone can sign in as any user id. Set the OAUTH_* variables for real sign-in. !!!',
    );
    return { oauth: devIdp.oauth, devIdp };
  }
  const callbackUrl = callbackUrlOf(publicUrl);
  logger.warn({ variables: [...OAUTH_VARIABLES], callbackUrl }, signInSetupHint(callbackUrl));
  return { oauth: undefined };
}
