import { Router } from 'express';
import { HttpError } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { ApiKeyService } from '../api-keys/api-key.service.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import type { Access } from '../shared/access.js';
import type { StatsService } from '../stats/stats.service.js';
import { adminPage } from './admin-view.js';

/** GET /admin: the owner's dashboard. Strangers are sent to sign in; other users get 403. */
export function adminRoutes(deps: {
  settings: SettingsStore<PasteSettings>;
  stats: StatsService;
  apiKeys: ApiKeyService;
  access: Access;
  ownerId: string | undefined;
}): Router {
  const router = Router();
  router.get('/admin', deps.access.settingsLimit, async (req, res) => {
    if (!req.user) {
      res.redirect(302, '/auth/idp');
      return;
    }
    if (!deps.ownerId || req.user.id !== deps.ownerId) throw HttpError.forbidden('Only the site owner can change its settings');
    const [stats, keys] = await Promise.all([deps.stats.get(), deps.apiKeys.list()]);
    res.set('Cache-Control', 'no-store').type('html').send(adminPage(deps.settings.get(), stats, keys, req.user.username));
  });
  return router;
}
