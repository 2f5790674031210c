import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { DEFAULT_LOGO } from '../src/settings/settings.schema.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

let site: TestSite;
let owner: { cookie: string; csrf: string };
beforeAll(async () => {
  site = await startTestSite();
  owner = await site.session(OWNER_ID);
});
afterAll(async () => {
  await site?.close();
});
beforeEach(async () => {
  await site.reset();
});

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1e3e3a40000000049454e44ae426082',
  'hex',
);
const GIF = Buffer.from(
  '47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b',
  'hex',
);
const JPEG = Buffer.concat([
  Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'),
  Buffer.alloc(64),
  Buffer.from('ffd9', 'hex'),
]);
const ICO = Buffer.concat([
  Buffer.from('0000010001001010000001002000680400001600000028000000', 'hex'),
  Buffer.alloc(1100),
]);
const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#2563eb"/></svg>',
);

const upload = (kind: 'logo' | 'favicon', file: Buffer, name: string, field: string = kind) =>
  site.http
    .post(`/api/upload/${kind}`)
    .set('Cookie', owner.cookie)
    .set('X-CSRF-Token', owner.csrf)
    .attach(field, file, name);

const pathPattern = (kind: string, ext: string) => new RegExp(`^/uploads/images/${kind}-\\d+-\\d+\\.${ext}$`);

describe(`branding uploads (${testDatabaseBackend()})`, () => {
  test.each([
    { kind: 'logo', file: PNG, name: 'logo.png', ext: 'png', type: 'image/png' },
    { kind: 'logo', file: JPEG, name: 'photo.jpeg', ext: 'jpg', type: 'image/jpeg' },
    { kind: 'logo', file: GIF, name: 'anim.gif', ext: 'gif', type: 'image/gif' },
    { kind: 'logo', file: SVG, name: 'vector.svg', ext: 'svg', type: 'image/svg\\+xml' },
    { kind: 'favicon', file: ICO, name: 'favicon.ico', ext: 'ico', type: 'image/x-icon|image/vnd.microsoft.icon' },
    { kind: 'favicon', file: PNG, name: 'icon.png', ext: 'png', type: 'image/png' },
    { kind: 'favicon', file: SVG, name: 'icon.svg', ext: 'svg', type: 'image/svg\\+xml' },
  ] as const)(
    'the owner uploads a $ext $kind: it is stored, answered as a path, set, and served',
    async ({ kind, file, name, ext, type }) => {
      const response = await upload(kind, file, name);
      expect(response.status).toBe(200);
      const key = kind === 'logo' ? 'logoPath' : 'faviconPath';
      expect(response.body).toEqual({
        success: true,
        message: expect.any(String),
        [key]: expect.stringMatching(pathPattern(kind, ext)),
      });
      const served = await site.http
        .get(response.body[key])
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toMatch(new RegExp(type));
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      if (ext !== 'svg') expect(Buffer.compare(served.body as Buffer, file)).toBe(0);
      const settings = (await site.http.get('/api/settings').set('Cookie', owner.cookie)).body;
      expect(settings[kind === 'logo' ? 'logo' : 'favIcon']).toBe(response.body[key]);
      const home = await site.http.get('/');
      expect(home.text).toContain(response.body[key]);
    },
  );

  it('an uploaded SVG is served with a CSP that allows no script', async () => {
    const response = await upload('logo', SVG, 'logo.svg');
    const served = await site.http.get(response.body.logoPath);
    expect(served.headers['content-security-policy']).toContain("default-src 'none'");
    expect(served.headers['content-security-policy']).not.toContain('script-src');
  });

  it('deletes the previous upload when a new one replaces it, but never the default', async () => {
    const first = await upload('logo', PNG, 'a.png');
    const firstFile = path.join(site.uploadDir, path.basename(first.body.logoPath));
    expect(existsSync(firstFile)).toBe(true);
    const second = await upload('logo', GIF, 'b.gif');
    expect(existsSync(firstFile)).toBe(false);
    expect(readdirSync(site.uploadDir)).toEqual([path.basename(second.body.logoPath)]);
    expect((await site.http.get(first.body.logoPath)).status).toBe(404);
    // The default logo lives in the app's static folder and is still served.
    await site.settings.update({ logo: DEFAULT_LOGO });
    await upload('logo', PNG, 'c.png');
    expect((await site.http.get(DEFAULT_LOGO)).status).toBe(200);
  });

  it('a hostile SVG is stored without its script, event handlers, foreignObject or external references', async () => {
    const hostile = Buffer.from(`<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert('load')">
  <script>alert('script')</script>
  <script xlink:href="https://evil.example/x.js"/>
  <rect width="10" height="10" onclick="alert('click')" fill="url(#g)" style="fill:url(https://evil.example/t)"/>
  <a href="javascript:alert('link')"><circle cx="5" cy="5" r="2"/></a>
  <use xlink:href="https://evil.example/sprite.svg#icon"/>
  <image href="https://evil.example/track.png" width="1" height="1"/>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml" onmouseover="alert('fo')">hi</div></foreignObject>
  <linearGradient id="g"><stop offset="0" stop-color="#000"/></linearGradient>
</svg>`);
    const response = await upload('logo', hostile, 'logo.svg');
    expect(response.status).toBe(200);
    const stored = readFileSync(path.join(site.uploadDir, path.basename(response.body.logoPath)), 'utf8');
    expect(stored).toMatch(/^<svg[\s>]/);
    expect(stored).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(stored).toContain('<rect');
    expect(stored).toContain('url(#g)');
    for (const banned of [
      '<script',
      'onload',
      'onclick',
      'onmouseover',
      'alert',
      'javascript:',
      'evil.example',
      'foreignObject',
      'foreignobject',
      '<image',
    ]) {
      expect(stored).not.toContain(banned);
    }
  });

  test.each([
    { name: 'a PNG renamed .svg', file: PNG, fileName: 'logo.svg' },
    {
      name: 'an HTML file renamed .png',
      file: Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>'),
      fileName: 'logo.png',
    },
    {
      name: 'an HTML file renamed .svg',
      file: Buffer.from('<html><body onload="alert(1)"><svg></svg></body></html>'),
      fileName: 'logo.svg',
    },
    { name: 'a zero-byte file', file: Buffer.alloc(0), fileName: 'logo.png' },
    { name: 'a text file', file: Buffer.from('just some text'), fileName: 'notes.txt' },
    { name: 'a PDF', file: Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF'), fileName: 'doc.png' },
    {
      name: 'an SVG that is not well-formed',
      file: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>'),
      fileName: 'bad.svg',
    },
  ])('$name is refused with 400 and nothing is stored', async ({ file, fileName }) => {
    const response = await upload('logo', file, fileName);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: expect.any(String) });
    expect(readdirSync(site.uploadDir)).toEqual([]);
  });

  it('a file over 2 MB answers 400 File too large (maximum 2 MB)', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]);
    const response = await upload('logo', big, 'big.png');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'File too large (maximum 2 MB)' });
  });

  it('no file answers 400, and so does a file in the wrong field', async () => {
    const none = await site.http
      .post('/api/upload/logo')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf)
      .field('other', 'x');
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(/No file uploaded/);
    const noBody = await site.http
      .post('/api/upload/favicon')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf);
    expect(noBody.status).toBe(400);
    const wrongField = await upload('favicon', PNG, 'icon.png', 'logo');
    expect(wrongField.status).toBe(400);
  });

  it('the CSRF token may not come in a multipart field instead of the header', async () => {
    const response = await site.http
      .post('/api/upload/logo')
      .set('Cookie', owner.cookie)
      .field('_csrf', owner.csrf)
      .attach('logo', PNG, 'logo.png');
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'Invalid CSRF token' });
  });
});
