export type { SessionUser, OAuthSettings } from './types.js';
export { createAuth, SESSION_START_WINDOW_MS, type Auth, type AuthOptions } from './create-auth.js';
export { requireSignedIn, requireOwner, requireUser } from './guards.js';
export { carriesApiCredentials } from './csrf.js';
export { userFromInfo } from './oauth-strategy.js';
export { createSessionTable } from './session.table.js';
export { callbackUrlOf } from './create-auth.js';
export { resolveIdentityProvider, type IdentityProvider } from './identity-provider.js';
