import { z } from 'zod';
import { defineRoute, type AnyRoute } from '@app/http';
import type { PasteGuards } from '../access/guards.js';
import { errorSchema } from '../common/responses.js';
import type { StatsService } from './stats.service.js';

const statisticsSchema = z.object({
  totalPastes: z.number(),
  totalViews: z.number(),
  last30Days: z.number(),
  apiUsage: z.number(),
  avgPasteSize: z.string(),
  mostViewed: z.number(),
  avgViews: z.number(),
  storageUsed: z.string(),
});

export function statsRoutes(deps: { service: StatsService; guards: PasteGuards }): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/stats',
      summary: "The site's statistics",
      tags: ['owner'],
      guard: deps.guards.owner,
      responses: {
        200: { description: 'Figures', schema: statisticsSchema },
        403: { description: 'Not the owner', schema: errorSchema },
      },
      handler: async ({ res }) => {
        res.set('Cache-Control', 'no-store');
        return deps.service.get();
      },
    }),
  ];
}
