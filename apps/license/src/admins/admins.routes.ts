import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { actorOf } from '../common/actor.js';
import { adminFailures, errorSchema } from '../common/responses.js';
import type { createAdminTokenService } from './admin-token.service.js';

/** `POST /api/auth/token`: a signed-in admin obtains a bearer token for programs. */
export function adminTokenRoutes(deps: {
  service: ReturnType<typeof createAdminTokenService>;
  admin: Guard;
}): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/auth/token',
      summary: 'Issue a bearer token (JWT) to the signed-in admin',
      tags: ['admin'],
      guard: deps.admin,
      responses: {
        200: {
          description: 'The token and when it expires',
          schema: z.object({
            success: z.literal(true),
            token: z.string(),
            tokenType: z.literal('Bearer'),
            expiresAt: z.iso.datetime(),
          }),
        },
        ...adminFailures,
        501: { description: 'This deployment does not issue tokens', schema: errorSchema },
      },
      handler: async ({ req }) => {
        // The admin guard has set req.admin.
        if (!req.admin) throw appError('UNAUTHORIZED');
        const { token, tokenType, expiresAt } = await deps.service.issue(actorOf(req));
        return { success: true, token, tokenType, expiresAt };
      },
    }),
  ];
}
