import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { testDatabaseBackend } from '@app/db/testing';
import { createLogger } from '@app/http';
import { testRateLimitStore } from '@app/rate-limit/testing';
import { createApp, type PasteApp } from '../src/app.js';
import { MAX_WRONG_PASSWORDS } from '../src/pastes/paste.service.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

const HOUR = 60 * 60_000;
const store = testRateLimitStore();
// The site's clock: tests move it on to end a window.
let now = new Date('2030-01-01T12:00:00Z');
let site: TestSite;
/** A second instance on the same database (no sign-in happens on it, so its provider is never called). */
let second: PasteApp;

beforeAll(async () => {
  // Behind one proxy hop: every attempt may claim a new client address in X-Forwarded-For.
  site = await startTestSite(undefined, { redis: store.redis, now: () => now, env: { TRUST_PROXY: '1' } });
  second = createApp({
    config: loadConfig({ NODE_ENV: 'test', OWNER_ID, LOG_LEVEL: 'silent', TRUST_PROXY: '1' }),
    database: site.database, settings: site.settings, publicUrl: 'http://127.0.0.1:1', uploadDir: site.uploadDir,
    oauth: {
      authorizationURL: 'http://127.0.0.1:1/authorize', tokenURL: 'http://127.0.0.1:1/token', userInfoURL: 'http://127.0.0.1:1/userinfo',
      clientID: 'unused', clientSecret: 'unused', scope: 'openid', idField: 'id', usernameField: 'username',
    },
    logger: createLogger({ level: 'silent' }), bcryptRounds: 4, now: () => now,
  });
});
afterAll(async () => {
  await second?.close();
  await site?.close();
  await store.close();
});

let addressCount = 0;
/** A client address never used before, as a rotating attacker would send. */
const freshAddress = () => { addressCount += 1; return `203.0.${Math.floor(addressCount / 250)}.${(addressCount % 250) + 1}`; };
const guess = (slug: string, password: string, http: ReturnType<typeof request> = site.http) =>
  http.post(`/paste/${slug}/verify`).set('X-Forwarded-For', freshAddress()).send({ password });
const cookieOf = (response: request.Response) =>
  (response.headers['set-cookie'] as unknown as string[]).map((line) => line.split(';')[0]).join('; ');

describe(`wrong passwords per paste (${testDatabaseBackend()}, ${store.kind} store)`, () => {
  it('after 30 wrong passwords from 30 addresses, the 31st attempt answers 429 Too many attempts from any address, the right password too', async () => {
    now = new Date('2030-01-01T12:00:00Z');
    const slug = await site.createPaste({ content: 'guarded text', password: 'right' });
    const untouched = await site.createPaste({ content: 'another paste', password: 'right' });
    // A reader who unlocked it before keeps reading: the lock is on password checks.
    const reader = await guess(slug, 'right');
    expect(reader.status).toBe(200);

    for (let i = 1; i <= MAX_WRONG_PASSWORDS; i += 1) {
      const wrong = await guess(slug, `wrong ${i}`);
      expect([wrong.status, wrong.body]).toEqual([401, { error: 'Incorrect password' }]);
    }
    const right = await guess(slug, 'right');
    expect([right.status, right.body]).toEqual([429, { error: 'Too many attempts' }]);
    const wrong = await guess(slug, 'wrong again');
    expect([wrong.status, wrong.body]).toEqual([429, { error: 'Too many attempts' }]);
    expect((await guess(slug, 'right', request(second.app))).status).toBe(429);

    // The pages say so too: the form post, the paste page and the raw view of a new visitor.
    const form = await site.http.post(`/paste/${slug}/verify`).set('X-Forwarded-For', freshAddress())
      .type('form').set('Accept', 'text/html').send({ password: 'right' });
    expect(form.status).toBe(429);
    expect(form.text).toContain('Too many attempts');
    const page = await site.http.get(`/paste/${slug}`).set('X-Forwarded-For', freshAddress());
    expect(page.status).toBe(429);
    expect(page.text).toContain('Too many attempts');
    expect(page.text).not.toContain('guarded text');
    const raw = await site.http.get(`/paste/${slug}/raw`).set('X-Forwarded-For', freshAddress());
    expect([raw.status, raw.text]).toEqual([429, 'Too many attempts\n']);

    expect((await site.http.get(`/paste/${slug}/raw`).set('Cookie', cookieOf(reader))).text).toBe('guarded text');
    expect((await guess(untouched, 'right')).status).toBe(200);
  });

  it('the window is the hour from the first wrong password: the 30th at minute 59 still answers 401, and once the hour is over the paste opens again', async () => {
    const start = new Date('2030-01-02T12:00:00Z');
    now = start;
    const slug = await site.createPaste({ content: 'timed', password: 'right' });
    for (let i = 1; i < MAX_WRONG_PASSWORDS; i += 1) expect((await guess(slug, 'wrong')).status).toBe(401);
    now = new Date(start.getTime() + 59 * 60_000);
    expect((await guess(slug, 'wrong')).status).toBe(401);
    expect((await guess(slug, 'right')).status).toBe(429);
    now = new Date(start.getTime() + HOUR - 1000);
    expect((await guess(slug, 'right')).status).toBe(429);

    now = new Date(start.getTime() + HOUR);
    const right = await guess(slug, 'right');
    expect([right.status, right.body]).toEqual([200, { success: true }]);
    expect((await site.http.get(`/paste/${slug}`).set('X-Forwarded-For', freshAddress())).status).toBe(200);
    // A new window starts with the next wrong password: 30 more are answered 401.
    for (let i = 1; i <= MAX_WRONG_PASSWORDS; i += 1) expect((await guess(slug, 'wrong')).status).toBe(401);
    expect((await guess(slug, 'wrong')).status).toBe(429);
  });

  it('of 100 simultaneous wrong passwords over two instances, exactly 30 answer 401 and 70 answer 429', async () => {
    now = new Date('2030-01-03T12:00:00Z');
    const slug = await site.createPaste({ content: 'contended', password: 'right' });
    const instances = [site.http, request(second.app)];
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => guess(slug, `wrong ${i}`, instances[i % 2])));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(MAX_WRONG_PASSWORDS);
    expect(statuses.filter((status) => status === 429)).toHaveLength(100 - MAX_WRONG_PASSWORDS);
    expect(answers.filter((answer) => answer.status === 429).every((answer) => answer.body.error === 'Too many attempts')).toBe(true);
    expect((await guess(slug, 'right')).status).toBe(429);
  });

  it('deleting the paste deletes its count', async () => {
    now = new Date('2030-01-04T12:00:00Z');
    const slug = await site.createPaste({ content: 'short-lived', password: 'right' });
    expect((await guess(slug, 'wrong')).status).toBe(401);
    const { rows: [paste] } = await site.database.pool.query('SELECT id FROM pastes WHERE slug = $1', [slug]);
    const countRows = async () => (await site.database.pool.query(
      'SELECT failures FROM paste_password_attempts WHERE paste_id = $1', [paste.id])).rows;
    expect(await countRows()).toEqual([{ failures: 1 }]);
    await site.database.pool.query('DELETE FROM pastes WHERE slug = $1', [slug]);
    expect(await countRows()).toEqual([]);
  });
});
