import { defineRoute, type AnyRoute } from '@app/http';
import type { PasteGuards } from '../access/guards.js';
import { errorSchema } from '../common/responses.js';
import { listPastesQuerySchema, pasteListSchema } from './moderation.schema.js';
import type { ModerationService } from './moderation.service.js';

const error = (description: string) => ({ description, schema: errorSchema });

/** The owner's list of pastes (the /admin page shows it too). */
export function moderationRoutes(deps: { service: ModerationService; guards: PasteGuards }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/pastes',
      summary: 'List and search every paste (owner)',
      tags: ['owner'],
      guard: deps.guards.ownerOrApiKey,
      description:
        'Newest first, never content or passwords. `q` matches part of the slug or title (any case); ' +
        '`cursor` is the `nextCursor` of the previous page.',
      query: listPastesQuerySchema,
      responses: {
        200: { description: 'A page of pastes', schema: pasteListSchema },
        400: error('Invalid limit or cursor'),
        401: error('Invalid API key'),
        403: error('Not the owner'),
        429: error('Too many requests'),
      },
      handler: async ({ query, res }) => {
        res.set('Cache-Control', 'no-store');
        return deps.service.list(query);
      },
    }),
  ];
}
