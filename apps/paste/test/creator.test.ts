import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { OTHER_USER_ID, OWNER_ID, startTestSite, type TestSite } from './helpers.js';

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site?.close();
});
beforeEach(async () => {
  await site.reset();
});

const viewsOf = async (slug: string) =>
  (await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [slug])).rows[0]?.views_count as
    number | undefined;

/**
 * A browser on the home page: it loads the page, takes the session's CSRF token from
 * /api/csrf-token (as the page script does) and posts the form's JSON with the session cookie.
 * The agent keeps the cookie for the pages that follow.
 */
async function createInBrowser(body: Record<string, unknown>) {
  const browser = request.agent(site.baseUrl);
  const home = await browser.get('/');
  expect(home.status).toBe(200);
  expect(home.text).toContain('id="paste-form"');
  const { body: token } = await browser.get('/api/csrf-token');
  const created = await browser.post('/api/paste').set('X-CSRF-Token', token.csrfToken).send(body);
  expect(created.status).toBe(200);
  return { browser, created: created.body as { slug: string; url: string; deleteToken: string; deleteUrl: string } };
}

const ownerHeaders = async () => {
  const owner = await site.session(OWNER_ID);
  return { Cookie: owner.cookie, 'X-CSRF-Token': owner.csrf };
};

describe(`creating in the browser never costs a view (${testDatabaseBackend()})`, () => {
  it('when a maxViews: 1 paste is made with the web form, the creator lands on the created page and the recipient still sees it once', async () => {
    const { browser, created } = await createInBrowser({ content: 'for your eyes once', maxViews: 1 });

    // The page script sends the creator here (public/app.js), not to the paste.
    const page = await browser.get(`/paste/${created.slug}/created`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain(`value="${site.baseUrl}/paste/${created.slug}"`);
    expect(page.text).toContain(`value="${created.deleteUrl}"`);
    expect(page.text).toMatch(/<svg class="qr-code" role="img"/);
    expect(page.text).toMatch(/Views allowed<\/dt><dd>1 view<\/dd>/);
    expect(page.text).toMatch(/Password protected<\/dt><dd>No<\/dd>/);
    expect(page.text).not.toContain('for your eyes once');
    // Reloading it counts nothing either.
    expect((await browser.get(`/paste/${created.slug}/created`)).status).toBe(200);
    expect(await viewsOf(created.slug)).toBe(0);

    const recipient = await request(site.baseUrl).get(`/paste/${created.slug}`);
    expect(recipient.status).toBe(200);
    expect(recipient.text).toContain('for your eyes once');
    const third = await request(site.baseUrl).get(`/paste/${created.slug}`);
    expect(third.status).toBe(410);
  });

  it('the created page shows no delete token to someone who merely knows the slug (404, as for an unknown paste)', async () => {
    const { created } = await createInBrowser({ content: 'mine' });
    const stranger = await request(site.baseUrl).get(`/paste/${created.slug}/created`);
    expect(stranger.status).toBe(404);
    expect(stranger.text).not.toContain(created.deleteToken);
    // Another browser session with its own CSRF token is a stranger too.
    const other = await site.pageSession();
    const otherPage = await request(site.baseUrl).get(`/paste/${created.slug}/created`).set('Cookie', other.cookie);
    expect(otherPage.status).toBe(404);
    expect(otherPage.text).not.toContain(created.deleteToken);
  });

  it('a paste created through the API (no browser session) has no created page', async () => {
    const created = await site.http.post('/api/paste').send({ content: 'by a program' });
    expect((await request(site.baseUrl).get(`/paste/${created.body.slug}/created`)).status).toBe(404);
  });

  it('the creator of a password paste lands on the created page without a password form, and opening the paste counts a view', async () => {
    const { browser, created } = await createInBrowser({
      content: 'locked text',
      password: 'open sesame',
      maxViews: 2,
    });
    const page = await browser.get(`/paste/${created.slug}/created`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Password required');
    expect(page.text).not.toMatch(/name="password"/);
    expect(page.text).toMatch(/Password protected<\/dt><dd>Yes<\/dd>/);
    expect(page.text).toMatch(/Views allowed<\/dt><dd>2 views<\/dd>/);
    expect(await viewsOf(created.slug)).toBe(0);

    // The creator's session is not asked for the password it just typed; the view counts as any view.
    const own = await browser.get(`/paste/${created.slug}`);
    expect(own.status).toBe(200);
    expect(own.text).toContain('locked text');
    expect(await viewsOf(created.slug)).toBe(1);
    // Everyone else is asked.
    const other = await request(site.baseUrl).get(`/paste/${created.slug}`);
    expect(other.text).toContain('Password required');
    expect(other.text).not.toContain('locked text');
  });

  it('statistics count the pastes and no view for the created page; a deleted paste leaves them', async () => {
    const { browser, created } = await createInBrowser({ content: 'counted', maxViews: 5 });
    await browser.get(`/paste/${created.slug}/created`);
    const kept = await site.createPaste({ content: 'kept' });
    await request(site.baseUrl).get(`/paste/${kept}`);
    const before = await site.http.get('/api/stats').set(await ownerHeaders());
    expect(before.body).toMatchObject({ totalPastes: 2, totalViews: 1, mostViewed: 1, apiUsage: 1, avgViews: 0.5 });

    expect(
      (await site.http.delete(`/api/paste/${created.slug}`).set('X-Delete-Token', created.deleteToken)).status,
    ).toBe(200);
    const after = await site.http.get('/api/stats').set(await ownerHeaders());
    expect(after.body).toMatchObject({
      totalPastes: 1,
      totalViews: 1,
      mostViewed: 1,
      apiUsage: 1,
      avgViews: 1,
      storageUsed: '4 B',
    });
  });
});

describe(`delete tokens (${testDatabaseBackend()})`, () => {
  it('every new paste answers a URL-safe random deleteToken and its absolute deleteUrl, keeping success, slug and url', async () => {
    const first = await site.http.post('/api/paste').send({ content: 'one' });
    const second = await site.http.post('/api/paste').send({ content: 'two' });
    expect(first.body).toEqual({
      success: true,
      slug: expect.any(String),
      url: `/paste/${first.body.slug}`,
      deleteToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      deleteUrl: `${site.baseUrl}/paste/${first.body.slug}/delete#${first.body.deleteToken}`,
      expiresAt: null,
      title: null,
      language: 'auto',
    });
    expect(second.body.deleteToken).not.toBe(first.body.deleteToken);
  });

  it('stores only the SHA-256 of the token', async () => {
    const created = await site.http.post('/api/paste').send({ content: 'hashed' });
    const { rows } = await site.database.pool.query(
      'SELECT delete_token_hash, row_to_json(pastes)::text AS whole FROM pastes',
    );
    expect(rows[0].delete_token_hash).toBe(createHash('sha256').update(created.body.deleteToken).digest('hex'));
    expect(rows[0].whole).not.toContain(created.body.deleteToken);
  });

  it('with the right X-Delete-Token it answers 200 { success: true }, and the paste answers 404 afterwards', async () => {
    const created = await site.http.post('/api/paste').send({ content: 'short-lived', maxViews: 3 });
    const deleted = await site.http
      .delete(`/api/paste/${created.body.slug}`)
      .set('X-Delete-Token', created.body.deleteToken);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    expect((await site.http.get(`/paste/${created.body.slug}`)).status).toBe(404);
    expect((await site.http.get(`/paste/${created.body.slug}/raw`)).status).toBe(404);
    const again = await site.http
      .delete(`/api/paste/${created.body.slug}`)
      .set('X-Delete-Token', created.body.deleteToken);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Paste not found' });
  });

  test.each([
    { name: 'no X-Delete-Token', headers: {} },
    { name: 'an empty X-Delete-Token', headers: { 'X-Delete-Token': '' } },
    { name: 'a wrong X-Delete-Token', headers: { 'X-Delete-Token': 'A'.repeat(43) } },
  ])('with $name it answers 403 Invalid delete token and keeps the paste', async ({ headers }) => {
    const slug = await site.createPaste({ content: 'stays' });
    const response = await site.http.delete(`/api/paste/${slug}`).set(headers);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'Invalid delete token' });
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(200);
  });

  it('the token of one paste does not delete another', async () => {
    const one = await site.http.post('/api/paste').send({ content: 'one' });
    const two = await site.createPaste({ content: 'two' });
    const response = await site.http.delete(`/api/paste/${two}`).set('X-Delete-Token', one.body.deleteToken);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'Invalid delete token' });
  });

  it('an unknown slug answers 404 Paste not found', async () => {
    const response = await site.http.delete('/api/paste/doesNotExist').set('X-Delete-Token', 'A'.repeat(43));
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Paste not found' });
  });

  it('the signed-in owner with the session CSRF token deletes any paste without a token', async () => {
    const slug = await site.createPaste({ content: 'moderated' });
    const response = await site.http.delete(`/api/paste/${slug}`).set(await ownerHeaders());
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(404);
  });

  it("the owner's session without its CSRF token is no owner here: 403 Invalid delete token", async () => {
    const slug = await site.createPaste({ content: 'stays' });
    const owner = await site.session(OWNER_ID);
    const response = await site.http.delete(`/api/paste/${slug}`).set('Cookie', owner.cookie);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'Invalid delete token' });
  });

  it('an API key the owner made deletes any paste without a token; a wrong key answers 401 Invalid API key', async () => {
    const key = await site.http
      .post('/api/settings/api-keys')
      .set(await ownerHeaders())
      .send({ name: 'moderation' });
    expect(key.status).toBe(200);
    const slug = await site.createPaste({ content: 'moderated by a program' });

    const wrong = await site.http.delete(`/api/paste/${slug}`).set('X-API-Key', 'pk_wrong');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid API key' });

    const response = await site.http.delete(`/api/paste/${slug}`).set('Authorization', `Bearer ${key.body.apiKey.key}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(404);
  });

  it('a signed-in user who is not the owner gets 403 Invalid delete token without a token', async () => {
    const slug = await site.createPaste({ content: 'not theirs' });
    const other = await site.session(OTHER_USER_ID);
    const response = await site.http
      .delete(`/api/paste/${slug}`)
      .set({ Cookie: other.cookie, 'X-CSRF-Token': other.csrf });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'Invalid delete token' });
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(200);
  });

  it('the token deletes even when the owner turned API access off or requires API keys', async () => {
    await site.settings.update({ apiAccess: true });
    const created = await site.http.post('/api/paste').send({ content: 'made while the API was open' });
    await site.settings.update({ apiAccess: false, apiKeyProtection: true });
    const response = await site.http
      .delete(`/api/paste/${created.body.slug}`)
      .set('X-Delete-Token', created.body.deleteToken);
    expect(response.status).toBe(200);
  });

  it('a paste stored before delete tokens existed is deleted by the owner only', async () => {
    await site.database.pool.query("INSERT INTO pastes (slug, content) VALUES ('oldPaste', 'from before')");
    const response = await site.http.delete('/api/paste/oldPaste').set('X-Delete-Token', 'A'.repeat(43));
    expect(response.status).toBe(403);
    expect((await site.http.delete('/api/paste/oldPaste').set(await ownerHeaders())).status).toBe(200);
  });
});

describe(`the delete link's pages (${testDatabaseBackend()})`, () => {
  it('the delete link opens a page that asks first, and deleting shows a confirmation', async () => {
    const created = await site.http.post('/api/paste').send({ content: 'remove me', maxViews: 1 });
    const { slug, deleteToken, deleteUrl } = created.body as { slug: string; deleteToken: string; deleteUrl: string };
    // The token is in the fragment, which a browser never sends: the page is requested without it.
    const pagePath = new URL(deleteUrl).pathname;
    expect(pagePath).toBe(`/paste/${slug}/delete`);
    const confirm = await request(site.baseUrl).get(pagePath);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Delete this paste?');
    expect(confirm.text).toMatch(/<button type="submit"[^>]*>Delete<\/button>/);
    expect(confirm.text).toMatch(/<a [^>]*href="\/"[^>]*>Cancel<\/a>/);
    expect(confirm.text).not.toContain('remove me');
    expect(await viewsOf(slug)).toBe(0);

    const deleted = await request(site.baseUrl)
      .post(pagePath)
      .type('form')
      .set('Accept', 'text/html')
      .send({ token: deleteToken });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toContain('Paste deleted');
    expect((await request(site.baseUrl).get(`/paste/${slug}`)).status).toBe(404);
  });

  it('a wrong token in the form shows the question again with Invalid delete token, and keeps the paste', async () => {
    const slug = await site.createPaste({ content: 'still here' });
    const response = await request(site.baseUrl)
      .post(`/paste/${slug}/delete`)
      .type('form')
      .set('Accept', 'text/html')
      .send({ token: 'nope' });
    expect(response.status).toBe(403);
    expect(response.text).toContain('Delete this paste?');
    expect(response.text).toContain('Invalid delete token');
    expect(await viewsOf(slug)).toBe(0);
  });

  it('the delete page of an unknown paste is a 404 page', async () => {
    const response = await request(site.baseUrl).get('/paste/noSuchOne/delete');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/text\/html/);
  });

  it('after the creator deletes it, the created page answers 404', async () => {
    const { browser, created } = await createInBrowser({ content: 'brief' });
    expect((await browser.get(`/paste/${created.slug}/created`)).status).toBe(200);
    await browser
      .post(`/paste/${created.slug}/delete`)
      .type('form')
      .set('Accept', 'text/html')
      .send({ token: created.deleteToken });
    expect((await browser.get(`/paste/${created.slug}/created`)).status).toBe(404);
  });
});
