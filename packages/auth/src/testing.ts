/**
 * Test helpers: sign in over real HTTP against the development provider, the way a browser does.
 * The app must be listening and configured with `startDevIdp(...).oauth`.
 */

/** A minimal cookie jar keyed by cookie name (tests talk to one app origin). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  constructor(header = '') {
    for (const pair of header.split(/;\s*/)) {
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }

  /** Takes the Set-Cookie headers of a response (a cleared or expired cookie is dropped). */
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(/;\s*/);
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const expired = attributes.some((attribute) => {
        const [key = '', value = ''] = attribute.split('=');
        if (key.toLowerCase() === 'max-age') return Number(value) <= 0;
        if (key.toLowerCase() === 'expires') return Date.parse(value) <= Date.now();
        return false;
      });
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1));
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * Walks /auth/idp?login_hint=<userId> → provider → /auth/idp/callback the way a browser does
 * and answers where on the app the chain ends (`/` when signed in, `/?error=...` when not) and
 * the Cookie header value the browser then holds, and every URL visited (the provider's authorize
 * URL with its `state`, the callback with its `code`). `appHeaders` go with every request to the
 * app (e.g. a proxy's X-Forwarded-Proto); `returnTo` is the page to come back to, as the sign-in
 * page's link passes it.
 */
export async function walkSignIn(
  baseUrl: string,
  userId: string,
  appHeaders: Record<string, string> = {},
  returnTo?: string,
): Promise<{ endedAt: URL; cookie: string; visited: URL[] }> {
  const appOrigin = new URL(baseUrl).origin;
  const jar = new CookieJar();
  const visited: URL[] = [];
  let url = `${baseUrl.replace(/\/+$/, '')}/auth/idp?login_hint=${encodeURIComponent(userId)}`;
  if (returnTo !== undefined) url += `&returnTo=${encodeURIComponent(returnTo)}`;
  for (let hop = 0; hop < 10; hop++) {
    visited.push(new URL(url));
    const onApp = new URL(url).origin === appOrigin;
    const headers = onApp ? { ...appHeaders, ...(jar.header() ? { Cookie: jar.header() } : {}) } : {};
    const response = await fetch(url, { redirect: 'manual', headers });
    if (onApp) jar.store(response);
    await response.arrayBuffer();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new Error(`Sign-in as ${userId} stopped at ${url} with status ${response.status}`);
    }
    const next = new URL(location, url);
    if (next.origin === appOrigin && !next.pathname.startsWith('/auth/'))
      return { endedAt: next, cookie: jar.header(), visited };
    url = next.href;
  }
  throw new Error(`Sign-in as ${userId}: too many redirects`);
}

/**
 * Signs `userId` in through the development provider and returns the Cookie header value of
 * the signed-in session. Throws when the chain ends anywhere but `/`.
 */
export async function signInAs(baseUrl: string, userId: string): Promise<string> {
  const { endedAt, cookie } = await walkSignIn(baseUrl, userId);
  if (endedAt.searchParams.has('error'))
    throw new Error(`Sign-in as ${userId} failed: ${endedAt.searchParams.get('error')}`);
  return cookie;
}

/** The CSRF token of the session the cookie names. */
export async function csrfTokenFor(baseUrl: string, cookie: string): Promise<string> {
  const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/api/csrf-token`, { headers: { Cookie: cookie } });
  if (!response.ok) throw new Error(`GET /api/csrf-token answered ${response.status}`);
  const body = (await response.json()) as { csrfToken: string };
  return body.csrfToken;
}

/** An anonymous session with its CSRF token (what the site's own page has before any sign-in). */
export async function anonymousCsrfSession(baseUrl: string): Promise<{ cookie: string; csrfToken: string }> {
  const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/api/csrf-token`);
  if (!response.ok) throw new Error(`GET /api/csrf-token answered ${response.status}`);
  const jar = new CookieJar();
  jar.store(response);
  const body = (await response.json()) as { csrfToken: string };
  return { cookie: jar.header(), csrfToken: body.csrfToken };
}
