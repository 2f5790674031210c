export { loadConfig, getConfig, resetConfig, ConfigError, type Config } from './load-config.js';
export { configSchema } from './schema.js';
export {
  resolveSessionSecret,
  resolveSessionSecretInDatabase,
  describeSessionSecret,
  sessionSecretFile,
  type SessionSecret,
} from './session-secret.js';
export {
  oauthSettingsOf,
  signInSetupHint,
  startsDevelopmentProvider,
  OAUTH_VARIABLES,
  type OAuthConfig,
} from './oauth.js';
export { PortInUseError, explainListenError } from './port-in-use.js';
