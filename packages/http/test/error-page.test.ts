import { describe, expect, it } from 'vitest';
import express from 'express';
import request from 'supertest';
import { backLinkOf, createErrorHandler, createLogger, HttpError, wantsHtmlErrorPage } from '../src/index.js';

// The one rule for choosing an HTML error page over JSON: a browser asking for a page.

const app = express();
app.get('/probe', (req, res) => {
  res.json({ html: wantsHtmlErrorPage(req), back: backLinkOf(req) });
});
app.get('/api/probe', (req, res) => {
  res.json({ html: wantsHtmlErrorPage(req) });
});
app.get('/api/file', () => {
  throw new HttpError(403, 'License suspended', undefined, { reason: 'Unpaid' });
});
app.use(
  createErrorHandler({
    successFlag: true,
    logger: createLogger({ level: 'silent' }),
    renderHtml: (req, status, message, answer) =>
      wantsHtmlErrorPage(req) ? `<p>${status} ${message} ${String(answer.extra?.reason)}</p>` : undefined,
  }),
);

const chromium = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const java = 'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2';

describe('wantsHtmlErrorPage', () => {
  it.each([
    {
      name: 'a browser navigation to a page',
      path: '/probe',
      headers: { Accept: chromium, 'Sec-Fetch-Mode': 'navigate' },
      html: true,
    },
    {
      name: 'an older browser without fetch metadata, to a page',
      path: '/probe',
      headers: { Accept: chromium },
      html: true,
    },
    { name: 'curl (*/*)', path: '/probe', headers: { Accept: '*/*' }, html: false },
    { name: 'no Accept', path: '/probe', headers: {}, html: false },
    { name: 'application/json', path: '/probe', headers: { Accept: 'application/json' }, html: false },
    {
      name: 'JSON preferred over HTML',
      path: '/probe',
      headers: { Accept: 'application/json, text/html;q=0.5' },
      html: false,
    },
    {
      name: 'a browser navigation under /api/',
      path: '/api/probe',
      headers: { Accept: chromium, 'Sec-Fetch-Mode': 'navigate' },
      html: true,
    },
    {
      name: 'fetch() from a page, under /api/',
      path: '/api/probe',
      headers: { Accept: '*/*', 'Sec-Fetch-Mode': 'cors' },
      html: false,
    },
    {
      name: 'a Java client under /api/ (text/html first, no fetch metadata)',
      path: '/api/probe',
      headers: { Accept: java },
      html: false,
    },
  ])('$name → html: $html', async ({ path, headers, html }) => {
    expect((await request(app).get(path).set(headers)).body.html).toBe(html);
  });

  it('links back to the page of this site the person came from, otherwise to the start page', async () => {
    const host = (res: request.Test) => res.set('Host', 'licenses.example');
    expect(
      (await host(request(app).get('/probe')).set('Referer', 'https://licenses.example/my-licenses/1?days=7')).body
        .back,
    ).toEqual({ href: '/my-licenses/1?days=7', sameSite: true });
    expect((await host(request(app).get('/probe')).set('Referer', 'https://elsewhere.example/x')).body.back).toEqual({
      href: '/',
      sameSite: false,
    });
    expect((await host(request(app).get('/probe')).set('Referer', 'not a url')).body.back).toEqual({
      href: '/',
      sameSite: false,
    });
  });

  it('the error handler hands the page its extra fields; JSON answers keep them', async () => {
    const page = await request(app).get('/api/file').set({ Accept: chromium, 'Sec-Fetch-Mode': 'navigate' });
    expect(page.status).toBe(403);
    expect(page.text).toBe('<p>403 License suspended Unpaid</p>');
    const json = await request(app).get('/api/file');
    expect(json.body).toEqual({ success: false, reason: 'Unpaid', error: 'License suspended' });
  });
});
