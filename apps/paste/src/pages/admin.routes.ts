import { z } from 'zod';
import { defineRoute, type AnyRoute } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { ApiKeyService } from '../api-keys/api-keys.service.js';
import type { PasteGuards } from '../access/guards.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import type { StatsService } from '../stats/stats.service.js';
import { decodeListCursor } from '../moderation/list-cursor.js';
import type { ModerationService } from '../moderation/moderation.service.js';
import { adminData } from './pages.page-data.js';

/** Pastes per page of the dashboard's list (the API answers up to 100). */
const ADMIN_PAGE_SIZE = 20;

/** The "Pastes" section's search and page; a page link gone stale shows the first page, never an error. */
const adminQuerySchema = z.object({
  q: z.string().max(200).optional().catch(undefined),
  cursor: z.string().max(200).optional().catch(undefined),
});

/** GET /admin: the owner's dashboard. Strangers are sent to sign in; other users get 403. */
export function adminRoutes(deps: {
  settings: SettingsStore<PasteSettings>;
  stats: StatsService;
  apiKeys: ApiKeyService;
  moderation: ModerationService;
  guards: PasteGuards;
  now: () => Date;
}): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/admin',
      summary: "The owner's dashboard",
      tags: ['pages'],
      guard: deps.guards.ownerPage,
      answer: 'page',
      query: adminQuerySchema,
      responses: {
        200: { description: 'The page', contentType: 'text/html' },
        302: { description: 'Not signed in: to the sign-in' },
        403: { description: 'Signed in, but not the owner', contentType: 'text/html' },
      },
      handler: async ({ query, res }) => {
        const q = query.q?.trim() ?? '';
        const cursor = query.cursor ? decodeListCursor(query.cursor) : undefined;
        const [stats, keys, list] = await Promise.all([
          deps.stats.dashboard(),
          deps.apiKeys.list(),
          deps.moderation.list({ q, cursor, limit: ADMIN_PAGE_SIZE }),
        ]);
        res
          .set('Cache-Control', 'no-store')
          .render(
            'admin/dashboard',
            adminData(deps.settings.get(), stats, keys, { list, q, paged: cursor !== undefined, now: deps.now() }),
          );
      },
    }),
  ];
}
