import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures } from '../common/responses.js';
import type { SigningKeysService } from './signing-keys.service.js';

const rotatedAnswer = z.object({
  success: z.literal(true),
  key: z.object({ kid: z.string(), publicKey: z.string(), createdAt: z.iso.datetime() }),
});

/** `POST /api/admin/signing-keys/rotate`: a new current signing key. */
export function signingKeyRoutes(deps: { service: SigningKeysService; admin: Guard }): AnyRoute[] {
  const { service } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/api/admin/signing-keys/rotate',
      summary: 'Rotate the signing key',
      tags: ['validation'],
      guard: deps.admin,
      status: 201,
      description:
        'A new Ed25519 key signs answers and offline files from now on (every instance within a few seconds); the previous one is retired and stays listed by `GET /api/license/public-key`, so what it signed still verifies.',
      audit: { action: 'create', resource: 'system' },
      responses: {
        201: { description: 'The new current key (public part)', schema: rotatedAnswer },
        ...adminFailures,
      },
      handler: async ({ req }) => ({ success: true as const, key: await service.rotate(actorOf(req)) }),
    }),
  ];
}
