import type { Request, Response } from 'express';
import { defineRoute, type AnyRoute } from '@app/http';
import { appError } from '../common/error-codes.js';
import type { SettingsStore } from '@app/settings';
import type { PasteGuards } from '../access/guards.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import type { Highlighter } from '../rendering/highlight.js';
import { errorSchema, successSchema } from '../common/responses.js';
import {
  encryptedPasteData,
  keyNeededPasteData,
  passwordData,
  pasteData,
  previewData,
  revealData,
} from './pastes.page-data.js';
import type { PasteSummary, ViewedPaste } from './pastes.repository.js';
import type { PasteService } from './pastes.service.js';
import type { AttachmentDownload } from '../attachments/attachments.service.js';
import {
  clearedPastesSchema,
  completedPasteSchema,
  createdPasteSchema,
  createPasteSchema,
  revealFormSchema,
  slugParamsSchema,
  verifyPasteSchema,
} from './pastes.schema.js';
import { wantsPlainText } from './plain-text.js';
import { isPreviewAgent } from './preview-agents.js';
import { pasteBodyParser } from './paste-body.js';
import { rememberCreated } from './created.js';
import { isUnlocked, unlock } from './unlocked.js';
import { clearedPastesAnswer, createdPasteAnswer, unlockedAnswer } from './pastes.presenter.js';

/**
 * A paste's raw answer: its text, or for an encrypted paste its envelope as JSON (only the link's
 * key opens it, so there is nothing else to answer). An encrypted paste's page fetches it, and
 * shows the counts from `X-Paste-Views` (this view included) and `X-Paste-Max-Views`.
 */
function sendRaw(req: Request, res: Response, paste: ViewedPaste, attachments: AttachmentDownload[]): void {
  if (paste.encrypted) {
    res.set('X-Paste-Views', String(paste.viewsCount));
    if (paste.maxViews !== null) res.set('X-Paste-Max-Views', String(paste.maxViews));
    // The envelope's fields are base64url: adding a field keeps it exactly as stored.
    const body =
      paste.attachments === 0
        ? paste.content
        : `${paste.content.slice(0, -1)},"attachments":${JSON.stringify(attachments)}}`;
    res.type('application/json; charset=utf-8').send(body);
    return;
  }
  if (wantsJson(req)) {
    res.type('application/json; charset=utf-8').send(JSON.stringify({ content: paste.content, attachments }));
    return;
  }
  res.type('text/plain; charset=utf-8').send(paste.content);
}

/** A raw read that asked for JSON (`Accept: application/json`): a plain paste answers `{ content, attachments }`. */
const wantsJson = (req: Request) =>
  req.headers.accept?.includes('json') === true &&
  req.accepts(['text/plain', 'application/json']) === 'application/json';

const ATTACHMENTS_DESCRIPTION =
  'A paste with files lists them (`attachments: [{ id, size, url, name?, type? }]`, `url` working for 10 minutes): ' +
  'an encrypted paste in its JSON, a plain one when asked with `Accept: application/json` (then `{ content, attachments }`).';

/**
 * X-Paste-Key-Check (decisions.md wave 4): the verifier of an encrypted paste's key, which a
 * reader sends to count a view; undefined when the request sent none.
 */
const keyCheckOf = (req: Request): string | undefined => {
  const value = req.headers['x-paste-key-check'];
  return typeof value === 'string' ? value.trim() : undefined;
};

const KEY_CHECK_DESCRIPTION =
  'An encrypted paste made with a key check (`encrypted.keyHash`) counts a view only for a request whose ' +
  'X-Paste-Key-Check header holds the verifier of its key; missing or wrong: 403 `Wrong key`, no view counted, ' +
  'and counted against the address like a wrong password (429 past 10 in 15 minutes).';

/**
 * The client's address, against which wrong passwords are counted: req.ip, so TRUST_PROXY
 * decides whether X-Forwarded-For is believed; an IPv4 client of a dual-stack socket
 * (`::ffff:a.b.c.d`) by its IPv4 form.
 */
const clientAddress = (req: Request) =>
  (req.ip ?? req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/** A browser form post (Accept prefers HTML) gets pages and redirects; programs get JSON. */
const wantsHtml = (req: Request) => req.accepts(['json', 'html']) === 'html';

const error = (description: string) => ({ description, schema: errorSchema });
const page = (description: string) => ({ description, contentType: 'text/html' });
const text = (description: string) => ({ description, contentType: 'text/plain' });

/** Creating, reading and unlocking pastes: the paths that carry nearly all the traffic. */
export function pasteRoutes(deps: {
  service: PasteService;
  settings: SettingsStore<PasteSettings>;
  guards: PasteGuards;
  highlight: Highlighter;
  now: () => Date;
}): AnyRoute[] {
  const { service, settings, guards } = deps;
  const tags = ['pastes'];
  // An encrypted paste is never rendered here: its page carries the envelope, and its script decrypts and renders it.
  const showPaste = async (res: Response, paste: ViewedPaste) => {
    const attachments = await service.downloads(paste);
    const current = settings.get();
    if (paste.encrypted)
      return res.render('pastes/encrypted', encryptedPasteData(current, paste, deps.now(), attachments));
    const code = deps.highlight(paste.id, paste.content, current.syntaxHighlighting, paste.language);
    res.render('pastes/show', pasteData(current, paste, code, deps.now(), attachments));
  };
  const raw = async (req: Request, res: Response, paste: ViewedPaste) =>
    sendRaw(req, res, paste, await service.downloads(paste));
  // A page cannot send the key check: the page of a paste that needs one carries no envelope,
  // counts nothing, and its script fetches the envelope with the check (or says the key is missing).
  const showKeyNeeded = (res: Response, paste: PasteSummary) =>
    res.render('pastes/encrypted', keyNeededPasteData(settings.get(), paste, deps.now()));
  return [
    defineRoute({
      method: 'post',
      path: '/api/paste',
      summary: 'Create a paste',
      tags,
      guard: guards.pasteCreate,
      description:
        "JSON or a form post. From the site's own page (with its CSRF token) under the web limit; " +
        'any other caller is an API request (API limit, apiAccess, apiKeyProtection). ' +
        'From the command line: Content-Type text/plain, the body is the content, query parameters maxViews, expiresIn, ' +
        'title, language, header X-Paste-Password; it answers text/plain (the absolute URL and a newline) with the ' +
        'delete token in the X-Delete-Token header, and errors as text/plain. ' +
        'End-to-end encrypted: `encrypted` ({ v: 1, iv, ciphertext, salt with a password }, base64url) in place of content, ' +
        "title and language; the key stays in the link's fragment, and maxPasteSize applies to the ciphertext. " +
        'Files: `attachments: [{ size, name?, type? }]` (at most 10; name and type only on plain pastes; the total ' +
        'at most maxAttachmentBytes, else 413 `Attachments too large`) answers `attachments: [{ id, uploadUrl }]`: ' +
        "PUT each file's exact bytes to its uploadUrl (10 minutes), then POST /api/paste/{slug}/complete; until then " +
        "the paste answers 404. An encrypted paste's files are encrypted with its key in chunks (packages/paste-cli/src/file-stream.js).",
      // Paste bodies may be far larger than any other body: their parser is sized by maxPasteSize.
      before: [pasteBodyParser(settings)],
      body: createPasteSchema,
      responses: {
        200: { description: 'Created', schema: createdPasteSchema },
        400: error('Empty or too long content, or invalid fields'),
        401: error('API key required or invalid'),
        403: error('API access is disabled'),
        413: error('Attachments too large'),
        429: error('Too many requests'),
        503: error('File storage is unavailable'),
      },
      handler: async ({ body, req, res }) => {
        const viaApi = res.locals.viaApi === true;
        const created = await service.create(body, viaApi);
        if (wantsPlainText(res)) {
          res
            .set('X-Delete-Token', created.deleteToken)
            .type('text/plain; charset=utf-8')
            .send(`${service.links(created.slug, created.deleteToken).link}\n`);
          return;
        }
        if (!viaApi) {
          // The site's own form: its session may open the creator's page, and is not asked for the
          // password it just typed.
          rememberCreated(req, created.slug, created.deleteToken, deps.now().getTime());
          if (body.password) unlock(req, created.slug);
        }
        return createdPasteAnswer(created);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/paste/:slug/complete',
      summary: "Complete a paste with files: every file's bytes were uploaded",
      tags,
      guard: guards.pasteDelete,
      description:
        "With the paste's delete token in the X-Delete-Token header. Checks that every file is in the store at its " +
        'declared size; the paste is readable from then on. Completing it again answers 200 as well.',
      params: slugParamsSchema,
      responses: {
        200: { description: 'Completed: the paste is readable', schema: completedPasteSchema },
        403: error('Invalid delete token'),
        404: error('Not found'),
        409: error('Attachments not uploaded (their ids follow)'),
        503: error('File storage is unavailable'),
      },
      handler: async ({ params: { slug }, req }) => {
        const token = req.headers['x-delete-token'];
        const done = await service.complete(slug, typeof token === 'string' && token !== '' ? token : undefined);
        return { success: true as const, ...done };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/admin/clear-pastes',
      summary: 'Delete every paste',
      tags: ['owner'],
      guard: guards.ownerWrite,
      responses: {
        200: { description: 'Deleted', schema: clearedPastesSchema },
        403: error('Not the owner, or no CSRF token'),
      },
      handler: async () => clearedPastesAnswer(await service.clearAll()),
    }),
    // Express would answer HEAD with the GET handler, counting a view: link checkers and `curl -I`
    // must not use up a paste with a view limit. Declared before the GETs for that reason.
    ...(['/paste/:slug', '/paste/:slug/raw'] as const).map((path) =>
      defineRoute({
        method: 'head',
        path,
        summary: 'Whether the paste exists, without counting a view (counted as a preview fetch)',
        tags,
        guard: guards.web,
        // No body either way; a refusal (404, 410) keeps the pages' error answer, for both paths.
        answer: 'page',
        params: slugParamsSchema,
        responses: {
          200: { description: 'It exists' },
          404: { description: 'Not found' },
          410: { description: 'Expired' },
        },
        handler: async ({ params, res }) => {
          await service.peek(params.slug);
          res
            .set('Cache-Control', 'no-store')
            .type(path.endsWith('/raw') ? 'text/plain' : 'html')
            .end();
        },
      }),
    ),
    defineRoute({
      method: 'get',
      path: '/paste/:slug',
      summary: 'Read a paste (counts a view)',
      tags,
      guard: guards.web,
      answer: 'page',
      description:
        'Link-preview agents get a preview page without the content and count no view; ' +
        'a reveal-on-click paste shows a "Show paste" button (POST /paste/{slug}/reveal) and counts nothing; ' +
        'an encrypted paste with a key check gets a page without its envelope that counts nothing: its script ' +
        'sends the key check (POST /paste/{slug}/raw).',
      params: slugParamsSchema,
      responses: {
        200: page('The paste, the password form, the "Show paste" page, or the preview page'),
        404: page('Not found'),
        410: page('Expired'),
      },
      handler: async ({ params, req, res }) => {
        res.set('Cache-Control', 'no-store');
        if (isPreviewAgent(req)) {
          await service.peek(params.slug);
          return res.render('pastes/preview', previewData(settings.get()));
        }
        const result = await service.view(params.slug, isUnlocked(req, params.slug), clientAddress(req));
        if (result.kind === 'locked') return res.render('pastes/password', passwordData(settings.get(), params.slug));
        if (result.kind === 'reveal')
          return res.render('pastes/reveal', revealData(settings.get(), result.slug, result.needsPassword));
        if (result.kind === 'key') return showKeyNeeded(res, result.paste);
        await showPaste(res, result.paste);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/paste/:slug/reveal',
      summary: 'Show a reveal-on-click paste (counts a view)',
      tags,
      guard: guards.web,
      description: 'The "Show paste" form; a password paste takes its password here (unless the session unlocked it).',
      params: slugParamsSchema,
      body: revealFormSchema,
      answer: 'page',
      // A wrong or missing password: the same page again, saying why.
      refused: {
        when: (failure, { req }) => [400, 401, 429].includes(failure.status) && wantsHtml(req),
        render: (failure, { params: { slug }, res }) =>
          res.status(failure.status).render('pastes/reveal', revealData(settings.get(), slug, true, failure.message)),
      },
      responses: {
        200: page('The paste'),
        400: page('Password is required'),
        401: page('Incorrect password'),
        404: page('Not found'),
        410: page('Expired'),
        429: page('Too many attempts'),
      },
      handler: async ({ params: { slug }, body, req, res }) => {
        res.set('Cache-Control', 'no-store');
        const result = await service.reveal(slug, isUnlocked(req, slug), body.password, clientAddress(req));
        if (result.kind === 'key') {
          // The page's script fetches the envelope with the key check: the password, right here,
          // unlocks that request.
          if (result.passwordChecked) unlock(req, slug);
          return showKeyNeeded(res, result.paste);
        }
        await showPaste(res, result.paste);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/paste/:slug/raw',
      summary: 'Read a paste as plain text (counts a view)',
      tags,
      guard: guards.web,
      description: `${KEY_CHECK_DESCRIPTION} ${ATTACHMENTS_DESCRIPTION}`,
      params: slugParamsSchema,
      // Plain text under the same rules; its refusals are plain text too.
      answer: 'text',
      responses: {
        200: text('The content; for an encrypted paste its envelope, as application/json'),
        401: text('Password required'),
        403: text('Wrong key'),
        404: text('Not found'),
        405: text('A reveal-on-click paste: POST /paste/{slug}/raw'),
        410: text('Expired'),
      },
      handler: async ({ params: { slug }, req, res }) => {
        res.set('Cache-Control', 'no-store');
        if (isPreviewAgent(req)) {
          await service.peek(slug);
          return res.render('pastes/preview', previewData(settings.get()));
        }
        const result = await service.view(slug, isUnlocked(req, slug), clientAddress(req), keyCheckOf(req));
        if (result.kind === 'key') await service.refuseMissingKey(slug, clientAddress(req));
        if (result.kind === 'locked') {
          res.status(401).type('text/plain').send(`Password required: unlock this paste at /paste/${slug}\n`);
          return;
        }
        if (result.kind === 'reveal') {
          // Only the button's POST shows a reveal-on-click paste, so no preview can use it up.
          res.set('Allow', 'POST');
          throw appError('PASTE_REVEAL_REQUIRED', {
            message: `This paste is shown only on request: POST /paste/${slug}/raw`,
          });
        }
        if (result.kind === 'shown') await raw(req, res, result.paste);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/paste/:slug/raw',
      summary: 'Read a reveal-on-click paste as plain text (counts a view)',
      tags,
      guard: guards.web,
      description:
        'Any paste, under the same rules as the "Show paste" form: a password paste takes `password` in the body. ' +
        `${KEY_CHECK_DESCRIPTION} ${ATTACHMENTS_DESCRIPTION}`,
      params: slugParamsSchema,
      body: revealFormSchema,
      answer: 'text',
      responses: {
        200: text('The content; for an encrypted paste its envelope, as application/json'),
        400: text('Password is required'),
        401: text('Incorrect password'),
        403: text('Wrong key'),
        404: text('Not found'),
        410: text('Expired'),
        429: text('Too many attempts'),
      },
      handler: async ({ params: { slug }, body, req, res }) => {
        res.set('Cache-Control', 'no-store');
        const address = clientAddress(req);
        const result = await service.reveal(slug, isUnlocked(req, slug), body.password, address, keyCheckOf(req));
        if (result.kind === 'key') await service.refuseMissingKey(slug, address);
        else await raw(req, res, result.paste);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/paste/:slug/verify',
      summary: 'Unlock a password-protected paste for this session',
      tags,
      guard: guards.web,
      params: slugParamsSchema,
      body: verifyPasteSchema,
      // A browser's form gets the password page again, saying why; programs get the JSON refusal.
      refused: {
        when: (failure, { req }) => wantsHtml(req) && [400, 401, 429].includes(failure.status),
        render: (failure, { params: { slug }, res }) =>
          res.status(failure.status).render('pastes/password', passwordData(settings.get(), slug, failure.message)),
      },
      responses: {
        200: { description: 'Unlocked', schema: successSchema },
        303: { description: 'Unlocked: a browser form is sent to the paste' },
        400: error('Password is required'),
        401: error('Incorrect password'),
        429: error('Too many attempts'),
      },
      handler: async ({ params: { slug }, body, req, res }) => {
        await service.verify(slug, body.password, clientAddress(req));
        unlock(req, slug);
        if (wantsHtml(req)) return void res.redirect(303, `/paste/${slug}`);
        return unlockedAnswer();
      },
    }),
  ];
}
