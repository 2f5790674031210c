import type { Request, Response } from 'express';
import { defineRoute, type AnyRoute } from '@app/http';
import { actorOf } from '../common/actor.js';
import { consoleAdminName, consoleWrites, takeFlash } from '../console/admin-pages.js';
import { signingKeysAuditId } from '../signing/signing-keys.service.js';
import { signingKeysPageData } from './admin-settings.page-data.js';
import { pageResponses, success, tags, writeResponses, type SettingsPagesDeps } from './admin-settings.pages-common.js';

// `/settings/signing-keys`: the keys that sign validation answers and offline files, and the
// button that rotates them (through the service the API uses, so the audit is the API's).

export function signingKeysSettingsPages(deps: SettingsPagesDeps): AnyRoute[] {
  const { service } = deps;
  const { writeThenRedirect } = consoleWrites(deps.auditFailure);

  async function render(req: Request, res: Response) {
    const keys = await service.signingKeys();
    res.render(
      'settings/signing-keys',
      signingKeysPageData(
        { username: consoleAdminName(req), messages: takeFlash(req), csrfToken: deps.csrfToken(req) },
        keys,
      ),
    );
  }

  return [
    defineRoute({
      method: 'get',
      path: '/settings/signing-keys',
      summary: 'The signing keys page',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      description:
        'Admins: every signing key (kid, created, retired, which is current) and the button that rotates the key.',
      responses: pageResponses,
      handler: ({ req, res }) => render(req, res),
    }),
    defineRoute({
      method: 'post',
      path: '/settings/signing-keys/rotate',
      summary: 'Rotate the signing key (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      description: 'As `POST /api/admin/signing-keys/rotate`, audited the same way.',
      responses: writeResponses,
      handler: async ({ req, res }) => {
        await writeThenRedirect(req, res, {
          write: async () => {
            const key = await service.rotateSigningKey(actorOf(req));
            return {
              to: '/settings/signing-keys',
              message: success(
                `New signing key ${key.kid} is current. Every instance signs with it within a few seconds; the previous key is retired and stays published, so what it signed still verifies.`,
              ),
            };
          },
          audit: { action: 'create', resourceType: 'system', resourceId: signingKeysAuditId },
          back: '/settings/signing-keys',
          notFoundPage: false,
        });
      },
    }),
  ];
}
