import { defineRoute, type AnyRoute } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { ApiKeyService } from '../api-keys/api-key.service.js';
import type { PasteGuards } from '../access/guards.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import type { StatsService } from '../stats/stats.service.js';
import { adminData } from './page-data.js';

/** GET /admin: the owner's dashboard. Strangers are sent to sign in; other users get 403. */
export function adminRoutes(deps: {
  settings: SettingsStore<PasteSettings>;
  stats: StatsService;
  apiKeys: ApiKeyService;
  guards: PasteGuards;
}): AnyRoute[] {
  return [defineRoute({
    method: 'get', path: '/admin', summary: "The owner's dashboard", tags: ['pages'], guard: deps.guards.ownerPage,
    responses: {
      200: { description: 'The page', contentType: 'text/html' },
      302: { description: 'Not signed in: to the sign-in' },
      403: { description: 'Signed in, but not the owner', contentType: 'text/html' },
    },
    handler: async ({ req, res }) => {
      const [stats, keys] = await Promise.all([deps.stats.get(), deps.apiKeys.list()]);
      res.set('Cache-Control', 'no-store').render('admin/dashboard', adminData(deps.settings.get(), stats, keys, req.user?.username ?? ''));
    },
  })];
}
