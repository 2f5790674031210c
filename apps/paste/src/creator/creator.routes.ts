import type { Request } from 'express';
import { defineRoute, type AnyRoute } from '@app/http';
import { appError } from '../common/error-codes.js';
import type { SettingsStore } from '@app/settings';
import type { PasteGuards } from '../access/guards.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import { createdData, deleteConfirmData, deletedData } from './creator.page-data.js';
import { qrCodeSvg } from './qr.js';
import { CREATED_PAGE_TTL_MS, createdEntry, forgetCreated } from '../pastes/created.js';
import type { OwnerCheck } from './delete-access.js';
import type { PasteService } from '../pastes/pastes.service.js';
import { errorSchema, successSchema } from '../common/responses.js';
import { deleteFormSchema, slugParamsSchema } from '../pastes/pastes.schema.js';

const headerToken = (req: Request) => {
  const value = req.headers['x-delete-token'];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

const page = (description: string) => ({ description, contentType: 'text/html' });

/**
 * What the creator of a paste uses: the page after the web form (`/paste/:slug/created`, for
 * the session that created it), the delete confirmation page and `DELETE /api/paste/:slug`.
 * None of them counts a view or shows the content.
 */
export function creatorRoutes(deps: {
  service: PasteService;
  settings: SettingsStore<PasteSettings>;
  guards: PasteGuards;
  isOwner: OwnerCheck;
  now: () => Date;
}): AnyRoute[] {
  const { service, settings, guards, isOwner } = deps;
  const tags = ['pastes'];
  return [
    defineRoute({
      method: 'get',
      path: '/paste/:slug/created',
      summary: "The creator's page: link, QR code, delete link",
      tags,
      guard: guards.web,
      answer: 'page',
      params: slugParamsSchema,
      responses: {
        200: page('The page, for the session that created the paste'),
        404: page('Not found (also for anyone else)'),
      },
      handler: async ({ params: { slug }, req, res }) => {
        res.set('Cache-Control', 'no-store');
        // Only the session that created the paste: someone who merely knows the slug gets the same
        // 404 as for a paste that does not exist, and never the delete token.
        const entry = createdEntry(req, slug, deps.now().getTime());
        if (!entry) throw appError('PASTE_NOT_FOUND');
        const paste = await service.summary(slug);
        const { link, deleteUrl } = service.links(slug, entry.deleteToken);
        // An encrypted paste's link needs the key, which only the creator's browser has: no QR code of it here.
        const qrSvg = paste.encrypted ? '' : await qrCodeSvg(link, `QR code of ${link}`);
        res.render(
          'pastes/created',
          createdData(settings.get(), {
            paste,
            link,
            deleteUrl,
            qrSvg,
            availableMinutes: CREATED_PAGE_TTL_MS / 60_000,
            now: deps.now(),
          }),
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: '/paste/:slug/delete',
      summary: 'Asks before deleting a paste',
      tags,
      guard: guards.web,
      answer: 'page',
      params: slugParamsSchema,
      responses: { 200: page('The confirmation page'), 404: page('Not found') },
      handler: async ({ params: { slug }, res }) => {
        await service.requireExists(slug);
        res.set('Cache-Control', 'no-store').render('pastes/delete', deleteConfirmData(settings.get(), slug));
      },
    }),
    // The confirm page's form: the token comes in the body, never in the address.
    defineRoute({
      method: 'post',
      path: '/paste/:slug/delete',
      summary: 'Delete a paste from the confirmation page',
      tags,
      guard: guards.web,
      params: slugParamsSchema,
      body: deleteFormSchema,
      answer: 'page',
      // A wrong token: the confirmation page again, saying so.
      refused: {
        when: (failure) => failure.code === 'PASTE_INVALID_DELETE_TOKEN',
        render: (failure, { params: { slug }, res }) =>
          res.status(failure.status).render('pastes/delete', deleteConfirmData(settings.get(), slug, failure.message)),
      },
      responses: { 200: page('Deleted'), 403: page('Invalid delete token'), 404: page('Not found') },
      handler: async ({ params: { slug }, body, req, res }) => {
        await service.remove(slug, { token: body.token, owner: await isOwner(req) });
        forgetCreated(req, slug);
        res.set('Cache-Control', 'no-store').render('pastes/deleted', deletedData(settings.get(), slug));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/paste/:slug',
      summary: 'Delete a paste',
      tags,
      guard: guards.pasteDelete,
      description:
        'With the delete token in the X-Delete-Token header, or as the owner (API key, or session with CSRF token).',
      params: slugParamsSchema,
      responses: {
        200: { description: 'Deleted', schema: successSchema },
        401: { description: 'Invalid API key', schema: errorSchema },
        403: { description: 'Invalid delete token', schema: errorSchema },
        404: { description: 'Not found', schema: errorSchema },
      },
      handler: async ({ params: { slug }, req }) => {
        await service.remove(slug, { token: headerToken(req), owner: await isOwner(req) });
        forgetCreated(req, slug);
        return { success: true };
      },
    }),
  ];
}
