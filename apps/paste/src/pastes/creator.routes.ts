import { Router, type Request } from 'express';
import { HttpError, isHttpError, parseInput } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { PasteSettings } from '../settings/settings.schema.js';
import { createdPage, deleteConfirmPage, deletedPage } from '../pages/creator-views.js';
import { qrCodeSvg } from '../pages/qr.js';
import type { Access } from '../shared/access.js';
import { CREATED_PAGE_TTL_MS, createdEntry, forgetCreated } from './created.js';
import type { DeleteAccess } from './delete-access.js';
import type { PasteService } from './paste.service.js';
import { deleteFormSchema, slugParamsSchema } from './paste.schema.js';

/** A slug that cannot exist is simply not found (404), not a validation error. */
function slugOf(req: Request): string {
  const parsed = slugParamsSchema.safeParse(req.params);
  return parsed.success ? parsed.data.slug : '';
}

const headerToken = (req: Request) => {
  const value = req.headers['x-delete-token'];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * What the creator of a paste uses: the page after the web form (`/paste/:slug/created`, for
 * the session that created it), the delete confirmation page and `DELETE /api/paste/:slug`.
 * None of them counts a view or shows the content.
 */
export function creatorRoutes(deps: {
  service: PasteService;
  settings: SettingsStore<PasteSettings>;
  access: Access;
  deleteAccess: DeleteAccess;
  now: () => Date;
}): Router {
  const { service, settings, deleteAccess } = deps;
  const router = Router();
  const web = deps.access.webLimiter.middleware;

  router.get('/paste/:slug/created', web, async (req, res) => {
    const slug = slugOf(req);
    res.set('Cache-Control', 'no-store');
    // Only the session that created the paste: someone who merely knows the slug gets the same
    // 404 as for a paste that does not exist, and never the delete token.
    const entry = createdEntry(req, slug, deps.now().getTime());
    if (!entry) throw HttpError.notFound('Paste not found');
    const paste = await service.summary(slug);
    const { link, deleteUrl } = service.links(slug, entry.deleteToken);
    const qrSvg = await qrCodeSvg(link, `QR code of ${link}`);
    res.type('html').send(createdPage(settings.get(), {
      paste, link, deleteUrl, qrSvg, availableMinutes: CREATED_PAGE_TTL_MS / 60_000,
    }));
  });

  router.get('/paste/:slug/delete', web, async (req, res) => {
    const slug = slugOf(req);
    await service.requireExists(slug);
    res.set('Cache-Control', 'no-store').type('html').send(deleteConfirmPage(settings.get(), slug));
  });

  // The confirm page's form: the token comes in the body, never in the address.
  router.post('/paste/:slug/delete', web, async (req, res) => {
    const slug = slugOf(req);
    const { token } = parseInput(deleteFormSchema, req.body ?? {});
    try {
      await service.remove(slug, { token, owner: await deleteAccess.isOwner(req) });
    } catch (error) {
      if (isHttpError(error) && error.status === 403) {
        res.status(403).type('html').send(deleteConfirmPage(settings.get(), slug, error.message));
        return;
      }
      throw error;
    }
    forgetCreated(req, slug);
    res.set('Cache-Control', 'no-store').type('html').send(deletedPage(settings.get(), slug));
  });

  router.delete('/api/paste/:slug', deleteAccess.limiter, async (req, res) => {
    const slug = slugOf(req);
    await service.remove(slug, { token: headerToken(req), owner: await deleteAccess.isOwner(req) });
    forgetCreated(req, slug);
    res.json({ success: true });
  });

  return router;
}
