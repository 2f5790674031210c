import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

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

const run = promisify(execFile);
const plain = (query = '') => site.http.post(`/api/paste${query}`).set('Content-Type', 'text/plain');
const stored = async (slug: string) =>
  (
    await site.database.pool.query(
      `SELECT content, max_views, expires_at, password_hash IS NOT NULL AS protected, title, language FROM pastes WHERE slug = $1`,
      [slug],
    )
  ).rows[0];
const apiUsage = async () => {
  const owner = await site.session(OWNER_ID);
  return (await site.http.get('/api/stats').set('Cookie', owner.cookie)).body.apiUsage as number;
};

describe(`POST /api/paste with Content-Type: text/plain (${testDatabaseBackend()})`, () => {
  it('takes the body as the content and answers the absolute URL and a newline, the delete token in X-Delete-Token', async () => {
    const content = 'line one\n  line two with "quotes" & <tags>\n\ttabbed\n';
    const response = await plain().send(content);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.text).toMatch(new RegExp(`^${site.baseUrl}/paste/[A-Za-z0-9]{8}\\n$`));
    const slug = response.text.trim().split('/').at(-1)!;
    expect(response.headers['x-delete-token']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stored(slug)).content).toBe(content);
    const raw = await site.http.get(`/paste/${slug}/raw`);
    expect(raw.text).toBe(content);

    const deleted = await site.http
      .delete(`/api/paste/${slug}`)
      .set('X-Delete-Token', response.headers['x-delete-token']!);
    expect([deleted.status, deleted.body]).toEqual([200, { success: true }]);
  });

  it('takes maxViews, expiresIn, title and language as query parameters and the password as X-Paste-Password', async () => {
    const response = await plain('?maxViews=2&expiresIn=3600&title=Notes&language=plaintext')
      .set('X-Paste-Password', 'hunter2')
      .send('guarded');
    expect(response.status).toBe(200);
    const slug = response.text.trim().split('/').at(-1)!;
    const row = await stored(slug);
    expect(row).toMatchObject({
      content: 'guarded',
      max_views: 2,
      protected: true,
      title: 'Notes',
      language: 'plaintext',
    });
    expect(new Date(row.expires_at).getTime() - Date.now()).toBeGreaterThan(3_590_000);
    expect((await site.http.get(`/paste/${slug}/raw`)).status).toBe(401);
    const reveal = await site.http.post(`/paste/${slug}/raw`).send({ password: 'hunter2' });
    expect([reveal.status, reveal.text]).toEqual([200, 'guarded']);
  });

  it("is an API request: counted in apiUsage even when it carries the page session's CSRF token", async () => {
    const page = await site.pageSession();
    await plain().set('Cookie', page.cookie).set('X-CSRF-Token', page.csrf).send('from a script');
    await plain().send('from curl');
    expect(await apiUsage()).toBe(2);
  });

  it('answers errors as text/plain: the error text and a newline, with the same status', async () => {
    const empty = await plain().send('   \n');
    expect([empty.status, empty.headers['content-type'], empty.text]).toEqual([
      400,
      'text/plain; charset=utf-8',
      'Content cannot be empty\n',
    ]);
    const nothing = await plain().send('');
    expect([nothing.status, nothing.text]).toEqual([400, 'Content cannot be empty\n']);

    const invalid = await plain('?maxViews=0').send('x');
    expect(invalid.status).toBe(400);
    expect(invalid.headers['content-type']).toMatch(/^text\/plain/);
    expect(invalid.text).toBe('Validation failed\n  maxViews must be a whole number from 1 to 1,000,000,000\n');
    const badExpiry = await plain('?expiresIn=abc').send('x');
    expect(badExpiry.text).toBe(
      'Validation failed\n  expiresIn must be a whole number of seconds from 1 to 31536000\n',
    );

    await site.settings.update({ maxPasteSize: 0.01 });
    const tooLong = await plain().send('x'.repeat(20_000));
    expect([tooLong.status, tooLong.text]).toEqual([400, 'Content exceeds maximum size of 0.01 MB\n']);
  });

  it('obeys apiAccess, apiKeyProtection and the API rate limit, answering in text', async () => {
    await site.settings.update({ apiAccess: false });
    const off = await plain().send('x');
    expect([off.status, off.text]).toEqual([403, 'API access is disabled\n']);

    await site.settings.update({ apiAccess: true, apiKeyProtection: true });
    const noKey = await plain().send('x');
    expect([noKey.status, noKey.text]).toEqual([401, 'API key required\n']);
    const owner = await site.session(OWNER_ID);
    const key = (
      await site.http
        .post('/api/settings/api-keys')
        .set('Cookie', owner.cookie)
        .set('X-CSRF-Token', owner.csrf)
        .send({ name: 'cli' })
    ).body.apiKey.key as string;
    const withKey = await plain().set('Authorization', `Bearer ${key}`).send('with a key');
    expect(withKey.status).toBe(200);
    expect(withKey.text).toMatch(/\/paste\/[A-Za-z0-9]{8}\n$/);

    // Earlier API requests of this file count in the window: the limit is set one above them.
    await site.settings.update({ apiKeyProtection: false });
    const probe = await plain().send('probe');
    const used = Number(probe.headers['x-ratelimit-limit']) - Number(probe.headers['x-ratelimit-remaining']);
    await site.settings.update({ apiRateLimit: used + 1 });
    expect((await plain().send('last one')).status).toBe(200);
    const limited = await plain().send('one too many');
    expect([limited.status, limited.text]).toEqual([429, 'Too many requests, please try again later\n']);
    expect(limited.headers['x-ratelimit-limit']).toBe(String(used + 1));
  });

  it('answers a server fault in text too (500 when the database fails)', async () => {
    await site.database.pool.query('ALTER TABLE pastes RENAME TO pastes_away');
    try {
      const response = await plain().send('x');
      expect([response.status, response.headers['content-type'], response.text]).toEqual([
        500,
        'text/plain; charset=utf-8',
        'Internal server error\n',
      ]);
    } finally {
      await site.database.pool.query('ALTER TABLE pastes_away RENAME TO pastes');
    }
  });

  it('JSON creates keep answering JSON, errors included', async () => {
    const response = await site.http.post('/api/paste').send({ content: '' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Content cannot be empty' });
  });
});

// The README's examples, with the real curl.
describe.skipIf(!existsSync('/usr/bin/curl'))(`the README's curl examples (${testDatabaseBackend()})`, () => {
  it('creates from a file with a view limit, expiry and password, reads it, and deletes it with X-Delete-Token', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'paste-cli-'));
    try {
      const file = path.join(folder, 'notes.txt');
      writeFileSync(file, 'from a file\nsecond line\n');
      const created = await run('curl', [
        '-sS',
        '-D',
        '-',
        '--data-binary',
        `@${file}`,
        '-H',
        'Content-Type: text/plain',
        '-H',
        'X-Paste-Password: s3cret',
        `${site.baseUrl}/api/paste?maxViews=3&expiresIn=3600`,
      ]);
      const [head, body] = created.stdout.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 200/);
      const token = /^x-delete-token: (\S+)/im.exec(head!)?.[1];
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(body).toMatch(new RegExp(`^${site.baseUrl}/paste/[A-Za-z0-9]{8}\\n$`));
      const url = body!.trim();
      const slug = url.split('/').at(-1)!;
      expect((await stored(slug)).content).toBe('from a file\nsecond line\n');

      const read = await run('curl', ['-sS', '--data-urlencode', 'password=s3cret', `${url}/raw`]);
      expect(read.stdout).toBe('from a file\nsecond line\n');

      const wrong = await run('curl', [
        '-sS',
        '-X',
        'DELETE',
        '-H',
        'X-Delete-Token: wrong',
        `${site.baseUrl}/api/paste/${slug}`,
      ]);
      expect(JSON.parse(wrong.stdout)).toEqual({ error: 'Invalid delete token' });
      const deleted = await run('curl', [
        '-sS',
        '-X',
        'DELETE',
        '-H',
        `X-Delete-Token: ${token}`,
        `${site.baseUrl}/api/paste/${slug}`,
      ]);
      expect(JSON.parse(deleted.stdout)).toEqual({ success: true });
      expect(await stored(slug)).toBeUndefined();

      const error = await run('curl', [
        '-sS',
        '-w',
        '%{http_code}',
        '--data-binary',
        '',
        '-H',
        'Content-Type: text/plain',
        `${site.baseUrl}/api/paste`,
      ]);
      expect(error.stdout).toBe('Content cannot be empty\n400');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
