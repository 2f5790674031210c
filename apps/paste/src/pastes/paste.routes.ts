import { Router, type Request, type Response } from 'express';
import { isHttpError, parseInput } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { Access } from '../shared/access.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import type { Highlighter } from '../pages/highlight.js';
import { passwordPage, pastePage } from '../pages/views.js';
import type { PasteService } from './paste.service.js';
import { createPasteSchema, slugParamsSchema, verifyPasteSchema } from './paste.schema.js';
import { rememberCreated } from './created.js';
import { isUnlocked, unlock } from './unlocked.js';

/** A browser form post (Accept prefers HTML) gets pages and redirects; programs get JSON. */
const wantsHtml = (req: Request) => req.accepts(['json', 'html']) === 'html';

/** A slug that cannot exist is simply not found (404), not a validation error. */
function slugOf(req: Request): string {
  const parsed = slugParamsSchema.safeParse(req.params);
  return parsed.success ? parsed.data.slug : '';
}

export function pasteRoutes(deps: {
  service: PasteService;
  settings: SettingsStore<PasteSettings>;
  access: Access;
  highlight: Highlighter;
  now: () => Date;
}): Router {
  const { service, settings, access } = deps;
  const router = Router();
  const web = access.webLimiter.middleware;

  router.post('/api/paste', access.pasteGate, async (req, res: Response) => {
    const input = parseInput(createPasteSchema, req.body);
    const viaApi = res.locals.viaApi === true;
    const created = await service.create(input, viaApi);
    if (!viaApi) {
      // The site's own form: its session may open the creator's page, and is not asked for the
      // password it just typed.
      rememberCreated(req, created.slug, created.deleteToken, deps.now().getTime());
      if (input.password) unlock(req, created.slug);
    }
    res.json({ success: true, slug: created.slug, url: created.url, deleteToken: created.deleteToken, deleteUrl: created.deleteUrl });
  });

  router.post('/api/admin/clear-pastes', ...access.ownerWrite, async (_req, res) => {
    const deletedCount = await service.clearAll();
    res.json({ success: true, message: `Cleared ${deletedCount} ${deletedCount === 1 ? 'paste' : 'pastes'}`, deletedCount });
  });

  // Express would answer HEAD with the GET handler, counting a view: link checkers and `curl -I`
  // must not use up a paste with a view limit.
  router.head(['/paste/:slug', '/paste/:slug/raw'], web, async (req, res) => {
    await service.peek(slugOf(req));
    res.set('Cache-Control', 'no-store').type(req.path.endsWith('/raw') ? 'text/plain' : 'html').end();
  });

  router.get('/paste/:slug', web, async (req, res) => {
    const slug = slugOf(req);
    const result = await service.view(slug, isUnlocked(req, slug));
    res.set('Cache-Control', 'no-store');
    if (result.kind === 'locked') {
      res.type('html').send(passwordPage(settings.get(), slug));
      return;
    }
    const current = settings.get();
    const code = deps.highlight(result.paste.id, result.paste.content, current.syntaxHighlighting);
    res.type('html').send(pastePage(current, result.paste, code));
  });

  // Plain text under the same rules; its errors are plain text too.
  router.get('/paste/:slug/raw', web, async (req, res) => {
    const slug = slugOf(req);
    res.set('Cache-Control', 'no-store');
    try {
      const result = await service.view(slug, isUnlocked(req, slug));
      if (result.kind === 'locked') {
        res.status(401).type('text/plain').send(`Password required: unlock this paste at /paste/${slug}\n`);
        return;
      }
      res.type('text/plain; charset=utf-8').send(result.paste.content);
    } catch (error) {
      if (!isHttpError(error) || error.status >= 500) throw error;
      res.status(error.status).type('text/plain').send(`${error.message}\n`);
    }
  });

  router.post('/paste/:slug/verify', web, async (req, res) => {
    const slug = slugOf(req);
    const { password } = parseInput(verifyPasteSchema, req.body);
    try {
      await service.verify(slug, password);
    } catch (error) {
      if (wantsHtml(req) && isHttpError(error) && [400, 401, 429].includes(error.status)) {
        res.status(error.status).type('html').send(passwordPage(settings.get(), slug, error.message));
        return;
      }
      throw error;
    }
    unlock(req, slug);
    if (wantsHtml(req)) {
      res.redirect(303, `/paste/${slug}`);
      return;
    }
    res.json({ success: true });
  });

  return router;
}
