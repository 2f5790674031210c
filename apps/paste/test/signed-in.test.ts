import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from '@app/auth/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { OTHER_USER_ID, OWNER_ID, startTestSite, type TestSite } from './helpers.js';

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site?.close();
});

/** The header bar of a page (the footer's "Owner" link is not the header's). */
const headerOf = (html: string) => html.slice(html.indexOf('<header'), html.indexOf('</header>'));

/**
 * Follows redirects from `path` the way a browser does, signing in at the development provider
 * as `userId`, and answers where on the site the chain ends.
 */
async function openSigningIn(path: string, userId: string): Promise<{ endedAt: URL; cookie: string }> {
  const jar = new CookieJar();
  const origin = new URL(site.baseUrl).origin;
  let url = `${site.baseUrl}${path}`;
  for (let hop = 0; hop < 10; hop++) {
    const onSite = new URL(url).origin === origin;
    const response = await fetch(url, {
      redirect: 'manual',
      headers: onSite && jar.header() ? { Cookie: jar.header() } : {},
    });
    if (onSite) jar.store(response);
    await response.arrayBuffer();
    const location = response.headers.get('location');
    // The provider's sign-in form: the test signs in the way its Sign in button does.
    const next = location ? new URL(location, url) : undefined;
    if (!next) return { endedAt: new URL(url), cookie: jar.header() };
    if (next.origin !== origin && !next.searchParams.has('login_hint')) next.searchParams.set('login_hint', userId);
    url = next.href;
  }
  throw new Error('too many redirects');
}

describe(`who is signed in, on every page (${testDatabaseBackend()})`, () => {
  it('the owner who opens /admin signs in and comes back to /admin, not to the new-paste form', async () => {
    const { endedAt, cookie } = await openSigningIn('/admin', OWNER_ID);
    expect(endedAt.pathname).toBe('/admin');
    const response = await site.http.get('/admin').set('Cookie', cookie);
    expect(response.status).toBe(200);
    expect(headerOf(response.text)).toContain(`Signed in as <strong>${OWNER_ID}</strong>`);
  });

  it('signing in from the home page still lands on the new-paste form', async () => {
    const { endedAt } = await openSigningIn('/auth/idp', OWNER_ID);
    expect(endedAt.pathname).toBe('/');
  });

  it("the owner's new-paste form says who is signed in and links to Admin and Sign out", async () => {
    const owner = await site.session(OWNER_ID);
    const response = await site.http.get('/').set('Cookie', owner.cookie);
    expect(response.status).toBe(200);
    const header = headerOf(response.text);
    expect(header).toContain(`Signed in as <strong>${OWNER_ID}</strong>`);
    expect(header).toMatch(/<a class="button button-ghost" href="\/admin">Admin<\/a>/);
    expect(header).toMatch(/<a class="button button-ghost" href="\/auth\/logout">Sign out<\/a>/);
    // A page naming its reader is kept by no cache.
    expect(response.headers['cache-control']).toBe('private, no-store');
  });

  it('another signed-in user sees their name and Sign out, but no Admin link', async () => {
    const other = await site.session(OTHER_USER_ID);
    const header = headerOf((await site.http.get('/').set('Cookie', other.cookie)).text);
    expect(header).toContain(`Signed in as <strong>${OTHER_USER_ID}</strong>`);
    expect(header).toContain('Sign out');
    expect(header).not.toContain('href="/admin"');
  });

  it('a visitor who is not signed in sees neither', async () => {
    const response = await site.http.get('/');
    const header = headerOf(response.text);
    expect(header).not.toContain('Signed in as');
    expect(header).not.toContain('Sign out');
    expect(header).not.toContain('href="/admin"');
    expect(response.headers['cache-control']).toBeUndefined();
  });

  it("the owner's paste pages say who is signed in too", async () => {
    const owner = await site.session(OWNER_ID);
    const slug = await site.createPaste({ content: 'hello' });
    const response = await site.http.get(`/paste/${slug}`).set('Cookie', owner.cookie);
    expect(response.status).toBe(200);
    expect(headerOf(response.text)).toContain('href="/admin">Admin</a>');
  });
});
