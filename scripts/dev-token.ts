// `npm run --silent dev-token`: prints a bearer token for the license service's admin API, for
// scripts in development (the README's quick start). It does what a person does in a browser:
// signs in as the first of ADMIN_IDS (default `admin`) through the development identity provider
// that `npm start` runs, then asks `POST /api/auth/token` (so the token is listed in Settings ›
// API tokens and can be revoked there). Refused when NODE_ENV=production; and a real identity
// provider never signs anyone in from `login_hint` alone, so the sign-in stops there.
import { ConfigError, loadConfig } from '../packages/config/src/index.js';
import { csrfTokenFor, walkSignIn } from '../packages/auth/src/testing.js';

async function main(): Promise<string> {
  const config = loadConfig(process.env);
  if (config.NODE_ENV === 'production') {
    throw new Error(
      'dev-token is for development only: in production, issue a token in the license console (Settings › API tokens).',
    );
  }
  const baseUrl = (config.LICENSE_PUBLIC_URL ?? `http://localhost:${config.licensePort}`).replace(/\/+$/, '');
  const adminId = config.ADMIN_IDS[0] ?? 'admin';

  let signedIn: Awaited<ReturnType<typeof walkSignIn>>;
  try {
    signedIn = await walkSignIn(baseUrl, adminId);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
    const refused =
      cause?.code === 'ECONNREFUSED' || Boolean(cause?.errors?.some((each) => each.code === 'ECONNREFUSED'));
    const reason = refused
      ? `nothing answers at ${baseUrl}: start the services with npm start first`
      : `${(error as Error).message}. dev-token signs in through the development identity provider, which npm start runs when OAUTH_CLIENT_ID is empty`;
    throw new Error(`Could not sign in as "${adminId}": ${reason}.`, { cause: error });
  }
  const failure = signedIn.endedAt.searchParams.get('error');
  if (failure) throw new Error(`Signing in as "${adminId}" failed (${failure}).`);

  const csrfToken = await csrfTokenFor(baseUrl, signedIn.cookie);
  const response = await fetch(`${baseUrl}/api/auth/token`, {
    method: 'POST',
    headers: { Cookie: signedIn.cookie, 'X-CSRF-Token': csrfToken, Accept: 'application/json' },
  });
  const body = (await response.json().catch(() => ({}))) as { token?: string; error?: string };
  if (!response.ok || !body.token) {
    throw new Error(
      `POST /api/auth/token answered ${response.status}: ${body.error ?? 'no token'}${response.status === 403 ? ` (is "${adminId}" an admin, without two-factor turned on?)` : ''}.`,
    );
  }
  return body.token;
}

main().then(
  (token) => console.log(token),
  (error: unknown) => {
    console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
