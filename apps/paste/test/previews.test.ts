import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { PREVIEW_AGENTS } from '../src/pastes/preview-agents.js';
import { startTestSite, type TestSite } from './helpers.js';

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

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const counts = async (slug: string) =>
  (
    await site.database.pool.query(
      'SELECT views_count AS views, preview_fetches AS previews FROM pastes WHERE slug = $1',
      [slug],
    )
  ).rows[0] as { views: number; previews: number } | undefined;

/** Fires `count` requests at once, each on its own connection; answers their statuses. */
async function simultaneous(count: number, send: () => Promise<Response>): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      send().then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      }),
    ),
  );
}

describe(`link previews never use up a paste (${testDatabaseBackend()})`, () => {
  it('a maxViews: 1 paste fetched by Slackbot-LinkExpanding 1.0 and by HEAD is still viewable once', async () => {
    const slug = await site.createPaste({ content: 'the secret itself', maxViews: 1 });
    const preview = await site.http
      .get(`/paste/${slug}`)
      .set('User-Agent', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)');
    expect(preview.status).toBe(200);
    expect(preview.headers['content-type']).toMatch(/text\/html/);
    expect(preview.text).toContain('<title>Paste</title>');
    expect(preview.text).not.toContain('the secret itself');
    expect(
      (await site.http.get(`/paste/${slug}/raw`).set('User-Agent', 'Slackbot-LinkExpanding 1.0')).text,
    ).not.toContain('the secret itself');
    expect((await site.http.head(`/paste/${slug}`)).status).toBe(200);
    expect((await site.http.head(`/paste/${slug}/raw`)).status).toBe(200);
    expect(await counts(slug)).toEqual({ views: 0, previews: 4 });

    const person = await site.http
      .get(`/paste/${slug}`)
      .set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120');
    expect(person.status).toBe(200);
    expect(person.text).toContain('the secret itself');
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(410);
    // A preview of a used-up paste says so too, and is not counted any more.
    expect((await site.http.get(`/paste/${slug}`).set('User-Agent', 'Slackbot-LinkExpanding 1.0')).status).toBe(410);
    expect(await counts(slug)).toEqual({ views: 1, previews: 4 });
  });

  it.each(PREVIEW_AGENTS)(
    'the agent %s (any case, inside a longer User-Agent) gets the preview page and counts no view',
    async (agent) => {
      const slug = await site.createPaste({ content: 'not for bots', maxViews: 1 });
      for (const userAgent of [`Mozilla/5.0 (compatible; ${agent}/2.1)`, agent.toLowerCase(), agent.toUpperCase()]) {
        const response = await site.http.get(`/paste/${slug}`).set('User-Agent', userAgent);
        expect(response.status).toBe(200);
        expect(response.text).not.toContain('not for bots');
      }
      expect(await counts(slug)).toEqual({ views: 0, previews: 3 });
    },
  );

  // The User-Agents these services send when they unfurl a link (an outside probe saw each of
  // them use up a one-view paste under the wave-2 list). Several match more than one word.
  it.each([
    ['Mastodon', 'http.rb/5.1.1 (Mastodon/4.2.8; +https://mastodon.social/)'],
    ['Matrix (Synapse)', 'Synapse (bot; +https://github.com/matrix-org/synapse)'],
    ['Bluesky (Cardyb)', 'Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)'],
    ['Viber', 'Viber/21.7.0.0 CFNetwork/1496.0.7 Darwin/23.5.0'],
    ['Pinterest', 'Pinterest/0.2 (+https://www.pinterest.com/bot.html)'],
    [
      'Zalo',
      'Mozilla/5.0 (Linux; Android 13; SM-A536E) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.230 Mobile Safari/537.36 Zalo android/24112050 ZaloTheme/light ZaloLanguage/vi',
    ],
    ['Discourse', 'Discourse Forum Onebox v3.2.0'],
    ['Zulip', 'Mozilla/5.0 (compatible; ZulipURLPreview/7.0; +https://zulip.com/)'],
    ['Outlook for iOS', 'Outlook-iOS/709.2226530.prod.iphone (4.2421.0)'],
    [
      'MicrosoftPreview',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MicrosoftPreview/2.0; +https://aka.ms/MicrosoftPreview) Chrome/116.0.1938.76 Safari/537.36',
    ],
    [
      'Google-PageRenderer',
      'Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/56.0.2924.87 Safari/537.36 Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/)',
    ],
    ['Snap', 'Mozilla/5.0 (compatible; Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots)'],
    ['vkShare', 'Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)'],
  ])(
    '%s (its real User-Agent) gets the preview page without the content; the one-view paste then opens once for a browser',
    async (_service, userAgent) => {
      const slug = await site.createPaste({ content: 'meant for one reader', maxViews: 1 });
      for (const path of [`/paste/${slug}`, `/paste/${slug}/raw`]) {
        const preview = await site.http.get(path).set('User-Agent', userAgent);
        expect(preview.status).toBe(200);
        expect(preview.text).toContain('<title>Paste</title>');
        expect(preview.text).not.toContain('meant for one reader');
      }
      expect(await counts(slug)).toEqual({ views: 0, previews: 2 });

      const reader = await site.http.get(`/paste/${slug}`).set('User-Agent', CHROME);
      expect(reader.status).toBe(200);
      expect(reader.text).toContain('meant for one reader');
      expect((await site.http.get(`/paste/${slug}`).set('User-Agent', CHROME)).status).toBe(410);
      expect(await counts(slug)).toEqual({ views: 1, previews: 2 });
    },
  );

  // Real User-Agents of browsers and command-line clients: none holds a word of the list, so each
  // counts a view.
  it.each([
    ['Chrome on Windows', CHROME],
    [
      'Chrome on Android',
      'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
    ],
    [
      'Chrome on iOS',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1',
    ],
    ['Firefox on Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0'],
    ['Firefox on Ubuntu', 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0'],
    ['Firefox on Android', 'Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0'],
    [
      'Safari on macOS',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    ],
    [
      'Safari on iPhone',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    ],
    [
      'Safari on iPad',
      'Mozilla/5.0 (iPad; CPU OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    ],
    [
      'Edge on Windows',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.68',
    ],
    [
      'Samsung Internet',
      'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
    ],
    // Phones whose model names hold "bot" (issue 53): the device part of an Android comment is not matched.
    [
      'Chrome on a CUBOT P40',
      'Mozilla/5.0 (Linux; Android 10; CUBOT P40) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.6045.163 Mobile Safari/537.36',
    ],
    [
      'a WebView on a CUBOT X19 S',
      'Mozilla/5.0 (Linux; Android 9; CUBOT_X19_S Build/PPR1.180610.011; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/88.0.4324.181 Mobile Safari/537.36',
    ],
    [
      'UC Browser on a CUBOT NOTE 7',
      'Mozilla/5.0 (Linux; U; Android 8.1.0; en-US; CUBOT NOTE 7 Build/O11019) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/57.0.2987.108 UCBrowser/13.4.0.1306 Mobile Safari/537.36',
    ],
    [
      'Samsung Internet on a CUBOT KINGKONG 5 Pro',
      'Mozilla/5.0 (Linux; Android 11; CUBOT KINGKONG 5 Pro) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
    ],
    ['curl', 'curl/8.8.0'],
    ['Wget', 'Wget/1.24.5'],
    ['python-requests', 'python-requests/2.32.3'],
    ['Go-http-client', 'Go-http-client/1.1'],
    ['Node.js fetch', 'node'],
    ['PowerShell', 'Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.22631; en-US) PowerShell/7.4.3'],
  ])('%s counts a view: a one-view paste answers 200, then 410', async (_client, userAgent) => {
    const slug = await site.createPaste({ content: 'read by a person', maxViews: 1 });
    const first = await site.http.get(`/paste/${slug}/raw`).set('User-Agent', userAgent);
    expect([first.status, first.text]).toEqual([200, 'read by a person']);
    expect((await site.http.get(`/paste/${slug}`).set('User-Agent', userAgent)).status).toBe(410);
    expect(await counts(slug)).toEqual({ views: 1, previews: 0 });
  });

  // Crawlers that copy an Android browser's comment (device and all) and name themselves after it:
  // leaving the device model out of the match still catches them.
  it.each([
    [
      'Googlebot Smartphone',
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    ],
    [
      'AdsBot-Google-Mobile',
      'Mozilla/5.0 (Linux; Android 5.0; SM-G920A) AppleWebKit (KHTML, like Gecko) Chrome Mobile Safari (compatible; AdsBot-Google-Mobile; +http://www.google.com/mobile/adsbot.html)',
    ],
    [
      'Bingbot mobile',
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/116.0.1938.76 Mobile Safari/537.36 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    ],
    [
      'PetalBot',
      'Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)',
    ],
    [
      'Applebot',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    ],
    ['YandexBot', 'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)'],
    ['AhrefsBot', 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)'],
    ['Telegram', 'TelegramBot (like TwitterBot)'],
  ])('%s (its real User-Agent) is still a preview agent and counts no view', async (_bot, userAgent) => {
    const slug = await site.createPaste({ content: 'not for crawlers', maxViews: 1 });
    const preview = await site.http.get(`/paste/${slug}/raw`).set('User-Agent', userAgent);
    expect(preview.status).toBe(200);
    expect(preview.text).not.toContain('not for crawlers');
    expect(await counts(slug)).toEqual({ views: 0, previews: 1 });
  });

  it('a preview of an unknown paste is a 404', async () => {
    expect((await site.http.get('/paste/nothere1').set('User-Agent', 'Twitterbot/1.0')).status).toBe(404);
  });
});

describe(`reveal on click (${testDatabaseBackend()})`, () => {
  it('GET shows a "Show paste" button without the content and counts nothing; the button shows it once, then 410', async () => {
    const created = await site.http
      .post('/api/paste')
      .send({ content: 'behind the button', maxViews: 1, revealOnClick: true });
    const { slug } = created.body;
    for (let i = 0; i < 3; i += 1) {
      const page = await site.http.get(`/paste/${slug}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`<form method="post" action="/paste/${slug}/reveal"`);
      expect(page.text).toMatch(/<button type="submit" class="button">Show paste<\/button>/);
      expect(page.text).not.toContain('behind the button');
      expect(page.text).not.toMatch(/name="password"/);
    }
    expect(await counts(slug)).toEqual({ views: 0, previews: 0 });

    const shown = await site.http.post(`/paste/${slug}/reveal`).type('form').set('Accept', 'text/html').send({});
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('behind the button');
    expect(shown.headers['cache-control']).toBe('no-store');
    const again = await site.http.post(`/paste/${slug}/reveal`).type('form').set('Accept', 'text/html').send({});
    expect(again.status).toBe(410);
    expect(again.text).toContain('Paste expired');
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(410);
    expect(await counts(slug)).toEqual({ views: 1, previews: 0 });
  });

  it('its raw view answers only POST /paste/:slug/raw; GET raw is 405 and counts nothing', async () => {
    const slug = await site.createPaste({ content: 'raw behind the button', maxViews: 2, revealOnClick: 'true' });
    const get = await site.http.get(`/paste/${slug}/raw`);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(get.text).toBe(`This paste is shown only on request: POST /paste/${slug}/raw\n`);
    const post = await site.http.post(`/paste/${slug}/raw`);
    expect(post.status).toBe(200);
    expect(post.headers['content-type']).toMatch(/text\/plain/);
    expect(post.text).toBe('raw behind the button');
    expect((await site.http.post(`/paste/${slug}/raw`)).status).toBe(200);
    const gone = await site.http.post(`/paste/${slug}/raw`);
    expect([gone.status, gone.text]).toEqual([410, 'Paste expired\n']);
    expect((await site.http.post('/paste/nothere1/raw')).text).toBe('Paste not found\n');
    expect((await site.http.post('/paste/nothere1/reveal').set('Accept', 'text/html')).status).toBe(404);
  });

  it('a password paste: the button page has a password field; the same password rules apply to the reveal', async () => {
    const slug = await site.createPaste({
      content: 'locked behind the button',
      password: 'open sesame',
      revealOnClick: true,
    });
    const page = await site.http.get(`/paste/${slug}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<span class="label">Password<\/span>\s*<input type="password" name="password" required/);
    expect(page.text).toContain('Show paste');
    const form = () => site.http.post(`/paste/${slug}/reveal`).type('form').set('Accept', 'text/html');
    const missing = await form().send({});
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Password is required');
    const wrong = await form().send({ password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Incorrect password');
    expect(wrong.text).not.toContain('locked behind the button');
    const right = await form().send({ password: 'open sesame' });
    expect(right.status).toBe(200);
    expect(right.text).toContain('locked behind the button');
    const raw = await site.http.post(`/paste/${slug}/raw`).send({ password: 'open sesame' });
    expect([raw.status, raw.text]).toEqual([200, 'locked behind the button']);
    expect((await site.http.post(`/paste/${slug}/raw`).send({ password: 'x' })).status).toBe(401);
    expect(await counts(slug)).toEqual({ views: 2, previews: 0 });
  });

  it('a session that unlocked the paste reveals it without the password', async () => {
    const slug = await site.createPaste({ content: 'unlocked before', password: 'pw', revealOnClick: true });
    const browser = request.agent(site.baseUrl);
    expect((await browser.post(`/paste/${slug}/verify`).send({ password: 'pw' })).status).toBe(200);
    const page = await browser.get(`/paste/${slug}`);
    expect(page.text).toContain('Show paste');
    expect(page.text).not.toMatch(/name="password"/);
    const shown = await browser.post(`/paste/${slug}/reveal`).type('form').set('Accept', 'text/html').send({});
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('unlocked before');
  });

  it('100 simultaneous POST /paste/:slug/reveal on a maxViews: 1 reveal paste: exactly one 200, 99 answer 410', async () => {
    const slug = await site.createPaste({ content: 'one reveal', maxViews: 1, revealOnClick: true });
    const statuses = await simultaneous(100, () =>
      fetch(`${site.baseUrl}/paste/${slug}/reveal`, {
        method: 'POST',
        headers: { Connection: 'close', Accept: 'text/html', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: '',
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 410)).toHaveLength(99);
    expect(await counts(slug)).toEqual({ views: 1, previews: 0 });
  });

  it('a preview agent gets the preview page of a reveal paste too (counted as a preview fetch)', async () => {
    const slug = await site.createPaste({ content: 'x', maxViews: 1, revealOnClick: true });
    const preview = await site.http.get(`/paste/${slug}`).set('User-Agent', 'Discordbot/2.0');
    expect(preview.text).not.toContain('Show paste');
    expect(await counts(slug)).toEqual({ views: 0, previews: 1 });
  });
});

describe(`the creator's page shows the preview fetches (${testDatabaseBackend()})`, () => {
  it('counts preview agents and HEAD requests, and says whether the paste has the button', async () => {
    const browser = request.agent(site.baseUrl);
    const { body: token } = await browser.get('/api/csrf-token');
    const created = await browser
      .post('/api/paste')
      .set('X-CSRF-Token', token.csrfToken)
      .send({ content: 'share me', maxViews: 1, revealOnClick: true });
    const { slug } = created.body;
    await site.http.get(`/paste/${slug}`).set('User-Agent', 'WhatsApp/2.23');
    await site.http.get(`/paste/${slug}`).set('User-Agent', 'TelegramBot (like TwitterBot)');
    await site.http.head(`/paste/${slug}`);
    const page = await browser.get(`/paste/${slug}/created`);
    expect(page.text).toMatch(/Preview fetches<\/dt><dd>3<\/dd>/);
    expect(page.text).toMatch(/Show paste button<\/dt><dd>Yes<\/dd>/);
    expect(page.text).toMatch(/Time limit<\/dt><dd>None<\/dd>/);
  });
});
