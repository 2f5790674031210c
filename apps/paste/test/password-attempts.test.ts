import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { testDatabaseBackend } from '@app/db/testing';
import { createLogger } from '@app/http';
import { testRateLimitStore } from '@app/rate-limit/testing';
import { createApp, type PasteApp } from '../src/app.js';
import { MAX_WRONG_PASSWORDS_PER_ADDRESS } from '../src/pastes/pastes.service.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

const MINUTE = 60_000;
const store = testRateLimitStore();
// The site's clock: tests move it on to end a window.
let now = new Date('2030-01-01T12:00:00Z');
let site: TestSite;
/** A second instance on the same database (no sign-in happens on it, so its provider is never called). */
let second: PasteApp;

beforeAll(async () => {
  // Behind one proxy hop: each request says which client it comes from in X-Forwarded-For.
  site = await startTestSite(undefined, { redis: store.redis, now: () => now, env: { TRUST_PROXY: '1' } });
  second = createApp({
    config: loadConfig({ NODE_ENV: 'test', OWNER_ID, LOG_LEVEL: 'silent', TRUST_PROXY: '1' }),
    database: site.database,
    settings: site.settings,
    publicUrl: 'http://127.0.0.1:1',
    uploadDir: site.uploadDir,
    oauth: {
      authorizationURL: 'http://127.0.0.1:1/authorize',
      tokenURL: 'http://127.0.0.1:1/token',
      userInfoURL: 'http://127.0.0.1:1/userinfo',
      clientID: 'unused',
      clientSecret: 'unused',
      scope: 'openid',
      idField: 'id',
      usernameField: 'username',
    },
    logger: createLogger({ level: 'silent' }),
    bcryptRounds: 4,
    now: () => now,
  });
});
afterAll(async () => {
  await second?.close();
  await site?.close();
  await store.close();
});

let addressCount = 0;
/** A client address never used before. */
const freshAddress = () => {
  addressCount += 1;
  return `203.0.${Math.floor(addressCount / 250)}.${(addressCount % 250) + 1}`;
};
type Http = ReturnType<typeof request>;
/** A password check (JSON) from `address`. */
const guess = (address: string, slug: string, password: string, http: Http = site.http) =>
  http.post(`/paste/${slug}/verify`).set('X-Forwarded-For', address).send({ password });
const cookieOf = (response: request.Response) =>
  (response.headers['set-cookie'] as unknown as string[]).map((line) => line.split(';')[0]).join('; ');
const pasteId = async (slug: string) =>
  (await site.database.pool.query('SELECT id FROM pastes WHERE slug = $1', [slug])).rows[0].id as string;

describe(`wrong passwords per client address (${testDatabaseBackend()}, ${store.kind} store)`, () => {
  it('after 10 wrong passwords from one address, that address gets 429 Too many attempts (the right password too) while another address with the right password gets in', async () => {
    now = new Date('2030-01-01T12:00:00Z');
    const guesser = freshAddress();
    const reader = freshAddress();
    const slug = await site.createPaste({ content: 'guarded text', password: 'right' });
    const untouched = await site.createPaste({ content: 'another paste', password: 'right' });

    for (let i = 1; i <= MAX_WRONG_PASSWORDS_PER_ADDRESS; i += 1) {
      const wrong = await guess(guesser, slug, `wrong ${i}`);
      expect([wrong.status, wrong.body]).toEqual([401, { error: 'Incorrect password' }]);
    }
    const eleventh = await guess(guesser, slug, 'wrong again');
    expect([eleventh.status, eleventh.body]).toEqual([429, { error: 'Too many attempts' }]);
    const right = await guess(guesser, slug, 'right');
    expect([right.status, right.body]).toEqual([429, { error: 'Too many attempts' }]);
    // Counted in the database: another instance refuses the address too.
    expect((await guess(guesser, slug, 'right', request(second.app))).status).toBe(429);

    // The pages say so to the guesser: the form post, the paste page and the raw view.
    const form = await site.http
      .post(`/paste/${slug}/verify`)
      .set('X-Forwarded-For', guesser)
      .type('form')
      .set('Accept', 'text/html')
      .send({ password: 'right' });
    expect(form.status).toBe(429);
    expect(form.text).toContain('Too many attempts');
    const page = await site.http.get(`/paste/${slug}`).set('X-Forwarded-For', guesser);
    expect(page.status).toBe(429);
    expect(page.text).toContain('Too many attempts');
    expect(page.text).not.toContain('guarded text');
    const raw = await site.http.get(`/paste/${slug}/raw`).set('X-Forwarded-For', guesser);
    expect([raw.status, raw.text]).toEqual([429, 'Too many attempts\n']);

    // The reader who has the password is not locked out, on either instance.
    const passwordForm = await site.http.get(`/paste/${slug}`).set('X-Forwarded-For', reader);
    expect(passwordForm.status).toBe(200);
    expect(passwordForm.text).toMatch(/name="password"/);
    const unlocked = await guess(reader, slug, 'right');
    expect([unlocked.status, unlocked.body]).toEqual([200, { success: true }]);
    expect((await guess(reader, slug, 'right', request(second.app))).status).toBe(200);
    expect(
      (await site.http.get(`/paste/${slug}/raw`).set('X-Forwarded-For', reader).set('Cookie', cookieOf(unlocked))).text,
    ).toBe('guarded text');
    // Counted per paste and address: the guesser's other paste still opens.
    expect((await guess(guesser, untouched, 'right')).status).toBe(200);
  });

  it('a reveal-on-click paste: the locked address gets 429 on its button page, its reveal and its raw post; another address reveals it with the password', async () => {
    now = new Date('2030-01-01T13:00:00Z');
    const guesser = freshAddress();
    const slug = await site.createPaste({ content: 'behind the button', password: 'right', revealOnClick: true });
    const reveal = (address: string, password: string) =>
      site.http
        .post(`/paste/${slug}/reveal`)
        .set('X-Forwarded-For', address)
        .type('form')
        .set('Accept', 'text/html')
        .send({ password });
    for (let i = 1; i <= MAX_WRONG_PASSWORDS_PER_ADDRESS; i += 1)
      expect((await reveal(guesser, 'wrong')).status).toBe(401);

    const refused = await reveal(guesser, 'right');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many attempts');
    expect(refused.text).not.toContain('behind the button');
    expect((await site.http.get(`/paste/${slug}`).set('X-Forwarded-For', guesser)).status).toBe(429);
    const raw = await site.http.post(`/paste/${slug}/raw`).set('X-Forwarded-For', guesser).send({ password: 'right' });
    expect([raw.status, raw.text]).toEqual([429, 'Too many attempts\n']);

    const reader = freshAddress();
    const button = await site.http.get(`/paste/${slug}`).set('X-Forwarded-For', reader);
    expect(button.status).toBe(200);
    expect(button.text).toContain('Show paste');
    const shown = await reveal(reader, 'right');
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('behind the button');
  });

  it("the window is 15 minutes from the address's first wrong password: the 10th at minute 14 still answers 401, and once the 15 minutes are over the address gets in", async () => {
    const start = new Date('2030-01-02T12:00:00Z');
    now = start;
    const address = freshAddress();
    const slug = await site.createPaste({ content: 'timed', password: 'right' });
    for (let i = 1; i < MAX_WRONG_PASSWORDS_PER_ADDRESS; i += 1)
      expect((await guess(address, slug, 'wrong')).status).toBe(401);
    now = new Date(start.getTime() + 14 * MINUTE);
    expect((await guess(address, slug, 'wrong')).status).toBe(401);
    expect((await guess(address, slug, 'right')).status).toBe(429);
    now = new Date(start.getTime() + 15 * MINUTE - 1000);
    expect((await guess(address, slug, 'right')).status).toBe(429);

    now = new Date(start.getTime() + 15 * MINUTE);
    const right = await guess(address, slug, 'right');
    expect([right.status, right.body]).toEqual([200, { success: true }]);
    expect((await site.http.get(`/paste/${slug}`).set('X-Forwarded-For', address)).status).toBe(200);
    // A new window starts with the next wrong password: 10 more are answered 401.
    for (let i = 1; i <= MAX_WRONG_PASSWORDS_PER_ADDRESS; i += 1)
      expect((await guess(address, slug, 'wrong')).status).toBe(401);
    expect((await guess(address, slug, 'wrong')).status).toBe(429);
  });

  it('of 100 simultaneous wrong passwords from one address over two instances, exactly 10 answer 401 and 90 answer 429; the paste still opens for another address', async () => {
    now = new Date('2030-01-03T12:00:00Z');
    const address = freshAddress();
    const slug = await site.createPaste({ content: 'contended', password: 'right' });
    const instances = [site.http, request(second.app)];
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => guess(address, slug, `wrong ${i}`, instances[i % 2])),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(MAX_WRONG_PASSWORDS_PER_ADDRESS);
    expect(statuses.filter((status) => status === 429)).toHaveLength(100 - MAX_WRONG_PASSWORDS_PER_ADDRESS);
    expect(
      answers.filter((answer) => answer.status === 429).every((answer) => answer.body.error === 'Too many attempts'),
    ).toBe(true);
    expect((await guess(address, slug, 'right')).status).toBe(429);
    expect((await guess(freshAddress(), slug, 'right')).status).toBe(200);
  });
});

describe(`no lock per paste: strangers never lock out the reader (${testDatabaseBackend()}, ${store.kind} store)`, () => {
  it("the probe's reproduction: 350 wrong passwords from 35 addresses, then the right one from a fresh address answers 200", async () => {
    now = new Date('2030-01-04T12:00:00Z');
    const slug = await site.createPaste({ content: 'much guessed', password: 'right' });
    const strangers = Array.from({ length: 35 }, freshAddress);
    const instances = [site.http, request(second.app)];
    let guesses = 0;
    for (const [index, stranger] of strangers.entries()) {
      const statuses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => guess(stranger, slug, `wrong ${index}-${i}`, instances[i % 2])),
      );
      expect(statuses.map((answer) => answer.status)).toEqual(Array(10).fill(401));
      guesses += statuses.length;
    }
    expect(guesses).toBe(350);
    // Each stranger is at its own limit now, and only there.
    expect((await guess(strangers[0]!, slug, 'right')).status).toBe(429);

    const reader = freshAddress();
    const right = await guess(reader, slug, 'right');
    expect([right.status, right.body]).toEqual([200, { success: true }]);
    expect((await guess(freshAddress(), slug, 'right', request(second.app))).status).toBe(200);
    const page = await site.http.get(`/paste/${slug}`).set('X-Forwarded-For', freshAddress());
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/name="password"/);
    const raw = await site.http
      .post(`/paste/${slug}/raw`)
      .set('X-Forwarded-For', freshAddress())
      .send({ password: 'right' });
    expect([raw.status, raw.text]).toEqual([200, 'much guessed']);
    // Nothing is counted per paste any more.
    const { rows } = await site.database.pool.query(
      'SELECT failures FROM paste_password_attempts WHERE paste_id = $1',
      [await pasteId(slug)],
    );
    expect(rows).toEqual([]);
  });
});

describe(`the counts' rows (${testDatabaseBackend()})`, () => {
  const countRows = async (id: string) => ({
    byAddress: (
      await site.database.pool.query(
        'SELECT address, failures FROM paste_password_attempts_by_address WHERE paste_id = $1 ORDER BY address',
        [id],
      )
    ).rows,
  });

  it('deleting the paste deletes its counts', async () => {
    now = new Date('2030-01-06T12:00:00Z');
    const slug = await site.createPaste({ content: 'short-lived', password: 'right' });
    expect((await guess('198.51.100.7', slug, 'wrong')).status).toBe(401);
    expect((await guess('198.51.100.7', slug, 'wrong')).status).toBe(401);
    expect((await guess('198.51.100.8', slug, 'wrong')).status).toBe(401);
    const id = await pasteId(slug);
    expect(await countRows(id)).toEqual({
      byAddress: [
        { address: '198.51.100.7', failures: 2 },
        { address: '198.51.100.8', failures: 1 },
      ],
    });
    await site.database.pool.query('DELETE FROM pastes WHERE slug = $1', [slug]);
    expect(await countRows(id)).toEqual({ byAddress: [] });
  });

  it("the expiry job's clean-up deletes the address counts whose 15 minutes are over and keeps the open ones", async () => {
    const start = new Date('2030-01-07T12:00:00Z');
    now = start;
    const slug = await site.createPaste({ content: 'cleaned', password: 'right' });
    expect((await guess('198.51.100.20', slug, 'wrong')).status).toBe(401);
    now = new Date(start.getTime() + 10 * MINUTE);
    expect((await guess('198.51.100.21', slug, 'wrong')).status).toBe(401);
    now = new Date(start.getTime() + 15 * MINUTE);
    await site.paste.pastes.forgetEndedAddressWindows();
    expect((await countRows(await pasteId(slug))).byAddress).toEqual([{ address: '198.51.100.21', failures: 1 }]);
  });
});
