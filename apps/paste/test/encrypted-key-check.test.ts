import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { keyCheck, keyHash, newKey, open, seal, type Envelope } from '../../../packages/paste-cli/src/envelope.js';
import { MAX_WRONG_PASSWORDS_PER_ADDRESS } from '../src/pastes/pastes.service.js';
import { startTestSite, type TestSite } from './helpers.js';

// Only the key's holder spends a view (decisions.md wave 4, "Key check"): an encrypted paste made
// with `encrypted.keyHash` counts a view only for a request carrying X-Paste-Key-Check, the
// verifier of the link's key. Missing or wrong: 403 `Wrong key`, nothing counted, limited per
// paste and address like wrong passwords. Pastes made without keyHash keep wave 3's rule.

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const MINUTE = 60_000;

let now = new Date('2030-02-01T12:00:00Z');
let site: TestSite;
beforeAll(async () => {
  // Behind one proxy hop: each request says which client it comes from in X-Forwarded-For.
  site = await startTestSite(undefined, { now: () => now, env: { TRUST_PROXY: '1' } });
});
afterAll(async () => {
  await site?.close();
});
beforeEach(async () => {
  await site.reset();
});

let addressCount = 0;
/** A client address never used before. */
const freshAddress = () => {
  addressCount += 1;
  return `198.18.${Math.floor(addressCount / 250)}.${(addressCount % 250) + 1}`;
};

interface Made {
  slug: string;
  key: string;
  check: string;
  envelope: Envelope;
}

/** An encrypted paste as the page and the command line make it now: with keyHash. */
async function keyedPaste(content: string, fields: Record<string, unknown> = {}, password?: string): Promise<Made> {
  const key = newKey();
  const envelope = await seal({ content }, key, { password });
  const response = await site.http
    .post('/api/paste')
    .send({ encrypted: envelope, ...(password ? { password } : {}), ...fields });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { slug: response.body.slug as string, key, check: await keyCheck(key), envelope };
}

const views = async (slug: string) =>
  (await site.database.pool.query('SELECT views_count AS n FROM pastes WHERE slug = $1', [slug])).rows[0]?.n as
    number | undefined;

/** Nothing of the envelope in an answer: no iv, ciphertext, salt or keyHash. */
const expectNoEnvelope = (text: string, envelope: Envelope) => {
  for (const value of [envelope.iv, envelope.ciphertext, envelope.salt, envelope.keyHash].filter(Boolean))
    expect(text).not.toContain(value);
};

const getRaw = (slug: string, check?: string, address = freshAddress()) => {
  const call = site.http.get(`/paste/${slug}/raw`).set('X-Forwarded-For', address);
  return check === undefined ? call : call.set('X-Paste-Key-Check', check);
};
const postRaw = (slug: string, check?: string, body: Record<string, unknown> = {}, address = freshAddress()) => {
  const call = site.http.post(`/paste/${slug}/raw`).set('X-Forwarded-For', address);
  return (check === undefined ? call : call.set('X-Paste-Key-Check', check)).send(body);
};

describe(`the key check of encrypted pastes (${testDatabaseBackend()})`, () => {
  it('stores keyHash = SHA-256 of the verifier, never the key or the verifier', async () => {
    const made = await keyedPaste('stored');
    const { rows } = await site.database.pool.query('SELECT content FROM pastes WHERE slug = $1', [made.slug]);
    const stored = JSON.parse(rows[0].content) as Envelope;
    expect(stored.keyHash).toBe(await keyHash(made.key));
    expect(rows[0].content).not.toContain(made.key);
    expect(rows[0].content).not.toContain(made.check);
  });

  it.each([
    { name: 'no key check', check: undefined },
    { name: 'the key check of another key', check: 'other' },
    { name: 'a key check that is not base64url of 32 bytes', check: 'not a verifier' },
    { name: 'the key itself', check: 'key' },
  ])('GET and POST /raw with $name: 403 Wrong key, nothing of the envelope, no view counted', async ({ check }) => {
    const made = await keyedPaste('guarded by its key', { maxViews: 1 });
    const sent =
      check === 'other'
        ? await keyCheck(newKey())
        : check === 'key'
          ? made.key
          : check === undefined
            ? undefined
            : check;
    const get = await getRaw(made.slug, sent);
    expect([get.status, get.text]).toEqual([403, 'Wrong key\n']);
    const post = await postRaw(made.slug, sent);
    expect([post.status, post.text]).toEqual([403, 'Wrong key\n']);
    expectNoEnvelope(get.text + post.text, made.envelope);
    expect(await views(made.slug)).toBe(0);
    // The one view is still there for the key's holder.
    const right = await getRaw(made.slug, made.check);
    expect([right.status, right.body]).toEqual([200, made.envelope]);
    expect(right.headers['x-paste-views']).toBe('1');
    expect(right.headers['x-paste-max-views']).toBe('1');
    expect(await open(right.body as Envelope, made.key)).toMatchObject({ content: 'guarded by its key' });
    expect(await views(made.slug)).toBe(1);
    expect((await getRaw(made.slug, made.check)).status).toBe(410);
  });

  it('the page counts nothing and carries no envelope: its script sends the key check; previews and HEAD count nothing either', async () => {
    const made = await keyedPaste('page text', { maxViews: 2 });
    const page = await site.http.get(`/paste/${made.slug}`).set('User-Agent', CHROME);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-key-check');
    expect(page.text).toContain('0 of 2 views');
    expect(page.text).not.toContain('paste-envelope');
    expectNoEnvelope(page.text, made.envelope);
    expect(page.text).toContain('<script type="module" src="/static/paste-view.js"></script>');
    await site.http.get(`/paste/${made.slug}`).set('User-Agent', 'Slackbot-LinkExpanding 1.0');
    await site.http.head(`/paste/${made.slug}`);
    // A page load, however often, spends nothing.
    for (let i = 0; i < 3; i += 1) expect((await site.http.get(`/paste/${made.slug}`)).status).toBe(200);
    expect(await views(made.slug)).toBe(0);

    const fetched = await postRaw(made.slug, made.check);
    expect([fetched.status, fetched.body]).toEqual([200, made.envelope]);
    expect([fetched.headers['x-paste-views'], fetched.headers['x-paste-max-views']]).toEqual(['1', '2']);
    expect(await views(made.slug)).toBe(1);
  });

  it('a reveal-on-click paste: GET /raw still answers 405; POST /raw counts only with the key check', async () => {
    const made = await keyedPaste('click first', { revealOnClick: true, maxViews: 1 });
    expect((await getRaw(made.slug, made.check)).status).toBe(405);
    expect((await postRaw(made.slug)).status).toBe(403);
    // The "Show paste" form cannot send a header: it gets the page without the envelope, nothing counted.
    const button = await site.http.post(`/paste/${made.slug}/reveal`).type('form').set('Accept', 'text/html').send({});
    expect(button.status).toBe(200);
    expect(button.text).toContain('data-key-check');
    expectNoEnvelope(button.text, made.envelope);
    expect(await views(made.slug)).toBe(0);
    const raw = await postRaw(made.slug, made.check);
    expect([raw.status, raw.body]).toEqual([200, made.envelope]);
    expect(await views(made.slug)).toBe(1);
  });

  it('with a password: the unlocked page counts nothing, the key check decides before the password, and both are needed', async () => {
    const made = await keyedPaste('two locks', {}, 'hunter2');
    const locked = await site.http.get(`/paste/${made.slug}`);
    expect(locked.text).toMatch(/name="password"/);
    const unlocked = await site.http.post(`/paste/${made.slug}/verify`).send({ password: 'hunter2' });
    expect(unlocked.status).toBe(200);
    const cookie = (unlocked.headers['set-cookie'] as unknown as string[]).map((line) => line.split(';')[0]).join('; ');
    const page = await site.http.get(`/paste/${made.slug}`).set('Cookie', cookie);
    expect(page.text).toContain('data-key-check');
    expectNoEnvelope(page.text, made.envelope);
    // A wrong key is refused whatever the password.
    expect((await postRaw(made.slug, await keyCheck(newKey()), { password: 'hunter2' })).status).toBe(403);
    // The right key still needs the password (or the session's unlock).
    expect((await getRaw(made.slug, made.check)).status).toBe(401);
    expect((await postRaw(made.slug, made.check, { password: 'wrong' })).status).toBe(401);
    expect(await views(made.slug)).toBe(0);
    const withSession = await site.http
      .post(`/paste/${made.slug}/raw`)
      .set('Cookie', cookie)
      .set('X-Paste-Key-Check', made.check)
      .send({});
    expect([withSession.status, withSession.body]).toEqual([200, made.envelope]);
    expect((await postRaw(made.slug, made.check, { password: 'hunter2' })).status).toBe(200);
    expect(await views(made.slug)).toBe(2);
  });

  it('a reveal-on-click password paste: the right password in the "Show paste" form unlocks the session, the page fetches with it', async () => {
    const made = await keyedPaste('behind the button', { revealOnClick: true }, 'open sesame');
    const wrong = await site.http
      .post(`/paste/${made.slug}/reveal`)
      .type('form')
      .set('Accept', 'text/html')
      .send({ password: 'nope' });
    expect(wrong.status).toBe(401);
    const shown = await site.http
      .post(`/paste/${made.slug}/reveal`)
      .type('form')
      .set('Accept', 'text/html')
      .send({ password: 'open sesame' });
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('data-key-check');
    expect(await views(made.slug)).toBe(0);
    const cookie = (shown.headers['set-cookie'] as unknown as string[]).map((line) => line.split(';')[0]).join('; ');
    const raw = await site.http
      .post(`/paste/${made.slug}/raw`)
      .set('Cookie', cookie)
      .set('X-Paste-Key-Check', made.check)
      .send({});
    expect([raw.status, raw.body]).toEqual([200, made.envelope]);
    expect(await views(made.slug)).toBe(1);
  });

  it('404 and 410 come before the key check', async () => {
    expect((await getRaw('nosuchpaste', 'x')).status).toBe(404);
    const made = await keyedPaste('soon gone', { expiresIn: 60 });
    await site.database.pool.query(`UPDATE pastes SET expires_at = now() - interval '1 second' WHERE slug = $1`, [
      made.slug,
    ]);
    expect((await getRaw(made.slug, 'wrong')).status).toBe(410);
    expect((await postRaw(made.slug)).status).toBe(410);
    expect((await site.http.get(`/paste/${made.slug}`)).status).toBe(410);
  });

  it('refuses a keyHash that is not 32 bytes of base64url with 400 naming encrypted.keyHash', async () => {
    const envelope = await seal({ content: 'x' }, newKey());
    const response = await site.http.post('/api/paste').send({ encrypted: { ...envelope, keyHash: 'short' } });
    expect(response.status).toBe(400);
    expect(response.body.details).toHaveProperty(['encrypted.keyHash']);
  });

  it('a plain paste ignores a key check header', async () => {
    const slug = await site.createPaste({ content: 'plain' });
    const raw = await getRaw(slug, 'anything');
    expect([raw.status, raw.text]).toEqual([200, 'plain']);
  });
});

describe(`wrong key checks are limited per paste and address (${testDatabaseBackend()})`, () => {
  it('after 10 wrong or missing key checks from one address it gets 429, the right key too, for 15 minutes; other addresses read on', async () => {
    const start = new Date('2030-02-02T12:00:00Z');
    now = start;
    const made = await keyedPaste('much tried');
    const other = await keyedPaste('another paste');
    const prober = freshAddress();
    for (let i = 1; i <= MAX_WRONG_PASSWORDS_PER_ADDRESS; i += 1) {
      // Missing checks count as wrong ones.
      const answer =
        i % 2
          ? await getRaw(made.slug, await keyCheck(newKey()), prober)
          : await postRaw(made.slug, undefined, {}, prober);
      expect([answer.status, answer.text]).toEqual([403, 'Wrong key\n']);
    }
    const over = await getRaw(made.slug, await keyCheck(newKey()), prober);
    expect([over.status, over.text]).toEqual([429, 'Too many attempts\n']);
    const right = await postRaw(made.slug, made.check, {}, prober);
    expect([right.status, right.text]).toEqual([429, 'Too many attempts\n']);
    expect(await views(made.slug)).toBe(0);

    // Per paste and address: another paste, and another address, are not refused.
    expect((await getRaw(other.slug, other.check, prober)).status).toBe(200);
    expect((await getRaw(made.slug, made.check, freshAddress())).status).toBe(200);
    expect(await views(made.slug)).toBe(1);

    now = new Date(start.getTime() + 15 * MINUTE);
    expect((await getRaw(made.slug, made.check, prober)).status).toBe(200);
  });

  it('wrong keys and wrong passwords share the count of an address', async () => {
    now = new Date('2030-02-03T12:00:00Z');
    const made = await keyedPaste('two locks', {}, 'right');
    const prober = freshAddress();
    for (let i = 1; i <= 5; i += 1) expect((await postRaw(made.slug, 'wrong', {}, prober)).status).toBe(403);
    for (let i = 1; i <= 5; i += 1)
      expect((await postRaw(made.slug, made.check, { password: 'wrong' }, prober)).status).toBe(401);
    expect((await postRaw(made.slug, made.check, { password: 'right' }, prober)).status).toBe(429);
    expect((await postRaw(made.slug, made.check, { password: 'right' })).status).toBe(200);
  });

  it('of 40 simultaneous wrong key checks from one address, exactly 10 answer 403 and 30 answer 429', async () => {
    now = new Date('2030-02-04T12:00:00Z');
    const made = await keyedPaste('contended');
    const prober = freshAddress();
    const statuses = (
      await Promise.all(
        Array.from({ length: 40 }, () =>
          request(site.baseUrl)
            .get(`/paste/${made.slug}/raw`)
            .set('X-Forwarded-For', prober)
            .set('X-Paste-Key-Check', 'wrong'),
        ),
      )
    ).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 403)).toHaveLength(MAX_WRONG_PASSWORDS_PER_ADDRESS);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40 - MAX_WRONG_PASSWORDS_PER_ADDRESS);
    expect(await views(made.slug)).toBe(0);
  });
});

describe(`encrypted pastes made before the key check keep wave 3's rule (${testDatabaseBackend()})`, () => {
  /** An envelope as wave 3 made it: no keyHash. */
  async function oldPaste(content: string, fields: Record<string, unknown> = {}) {
    const key = newKey();
    const { keyHash: _keyHash, ...envelope } = await seal({ content }, key);
    const response = await site.http.post('/api/paste').send({ encrypted: envelope, ...fields });
    expect(response.status).toBe(200);
    return { slug: response.body.slug as string, key, envelope };
  }

  it('the raw views answer the envelope without a key check (any header is ignored) and count each view', async () => {
    const made = await oldPaste('old one', { maxViews: 3 });
    const plain = await getRaw(made.slug);
    expect([plain.status, plain.body]).toEqual([200, made.envelope]);
    expect((await getRaw(made.slug, 'anything')).body).toEqual(made.envelope);
    expect((await postRaw(made.slug)).body).toEqual(made.envelope);
    expect(await views(made.slug)).toBe(3);
    expect((await getRaw(made.slug)).status).toBe(410);
  });

  it('the page embeds the envelope and counts the view, as before', async () => {
    const made = await oldPaste('old page');
    const page = await site.http.get(`/paste/${made.slug}`).set('User-Agent', CHROME);
    expect(page.text).toContain(
      `<script type="application/json" id="paste-envelope">${JSON.stringify(made.envelope)}</script>`,
    );
    expect(page.text).not.toContain('data-key-check');
    expect(await views(made.slug)).toBe(1);
  });
});
