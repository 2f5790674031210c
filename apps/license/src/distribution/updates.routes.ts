import type { RequestHandler } from 'express';
import { z } from 'zod';
import { defineRoute, jsonBody, type AnswerSigner, type AnyRoute, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { errorSchema } from '../common/responses.js';
import { callerIp, signedAnswerFields, signedErrorSchema } from '../signing/signed-answers.js';
import type { createValidationService } from '../validation/validation.service.js';
import { offeredReleaseSchema } from './releases.presenter.js';
import { tauriParams, upgradeBodySchema } from './releases.schema.js';
import type { ReleasesService } from './releases.service.js';

const tags = ['updates'];

export const upgradeAnswerSchema = z.object({
  success: z.literal(true),
  ...signedAnswerFields,
  upgrade: offeredReleaseSchema.nullable(),
});

/**
 * Tauri's dynamic update format (v1 and v2 updaters): `version`, `url` and `signature` required,
 * `pub_date` RFC 3339 and `notes` optional; 204 when there is nothing newer.
 */
export const tauriUpdateSchema = z.object({
  version: z.string(),
  pub_date: z.iso.datetime(),
  url: z.url(),
  signature: z.string(),
  notes: z.string(),
});

/** `Authorization: License KEY`. */
function licenseKeyOf(header: string | undefined): string {
  const match = /^License\s+(\S{1,200})\s*$/i.exec(header ?? '');
  if (!match) throw appError('LICENSE_KEY_REQUIRED');
  return match[1]!;
}

/** What applications and their updaters call: the upgrade question (signed), Tauri's feed, and download links. */
export function updateRoutes(deps: {
  service: ReleasesService;
  validate: ReturnType<typeof createValidationService>;
  signed: AnswerSigner;
  public: Guard;
  panicGuard: RequestHandler;
  limiter: RequestHandler;
}): AnyRoute[] {
  const { service, validate } = deps;
  const json = jsonBody({ limit: '16kb' });
  const refusals = {
    400: { description: 'Validation failed, or no such license', schema: signedErrorSchema },
    403: {
      description: 'Expired, suspended, revoked, inactive, over a limit or out of credits (the texts of validate)',
      schema: signedErrorSchema,
    },
    429: { description: 'Too many requests from this address', schema: signedErrorSchema },
    503: { description: 'Panic mode is on', schema: signedErrorSchema },
  };
  return [
    defineRoute({
      method: 'post',
      path: '/api/license/releases/upgrade',
      summary: 'The newest release this license may install (signed answer)',
      description:
        'Validates the key as `/api/license/validate` does (the fingerprint as its hwid), then answers the newest published release above `currentVersion` on `channel` or a more stable one, for which the license holds every entitlement, and for a `maintain` license past its expiry, published before `expiresAt`; `upgrade: null` when there is none. Artifact URLs work for 10 minutes. Signed like validate: `X-License-Signature`, `X-License-Key-Id`, `request` and `issuedAt`.',
      tags,
      guard: deps.public,
      before: [deps.panicGuard, deps.limiter, json],
      answer: 'signed',
      signer: deps.signed,
      body: upgradeBodySchema,
      responses: { 200: { description: 'The upgrade, or null', schema: upgradeAnswerSchema }, ...refusals },
      handler: async ({ body, req }) => {
        const license = await validate({ key: body.key, ip: callerIp(req.ip), hwid: body.fingerprint ?? null });
        const upgrade = await service.upgradeFor(license, {
          currentVersion: body.currentVersion,
          channel: body.channel,
          platform: body.platform,
          arch: body.arch,
        });
        return { success: true, upgrade };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/license/updates/tauri/:productId/:target/:arch/:currentVersion',
      summary: "Tauri's dynamic update feed (204 when up to date)",
      description:
        "Point a Tauri updater's endpoint at `/api/license/updates/tauri/PRODUCT_ID/{{target}}/{{arch}}/{{current_version}}` with the header `Authorization: License KEY`. The key is validated as validate does; the answer is the newest stable release the license may install with an artifact for that target and arch that carries a signature (the content of Tauri's `.sig`).",
      tags,
      guard: deps.public,
      before: [deps.panicGuard, deps.limiter],
      params: tauriParams,
      responses: {
        200: { description: "An update, in Tauri's format", schema: tauriUpdateSchema },
        204: { description: 'Nothing newer' },
        400: { description: 'Validation failed, or no such license (of this product)', schema: errorSchema },
        401: { description: 'No `Authorization: License KEY` header', schema: errorSchema },
        403: { description: 'The license is refused (the texts of validate)', schema: errorSchema },
        429: { description: 'Too many requests', schema: errorSchema },
        503: { description: 'Panic mode is on', schema: errorSchema },
      },
      handler: async ({ params, req, res }) => {
        const key = licenseKeyOf(req.get('authorization'));
        const license = await validate({ key, ip: callerIp(req.ip), hwid: null });
        if (license.productId !== params.productId) throw appError('LICENSE_VALIDATION_NOT_FOUND');
        const upgrade = await service.upgradeFor(license, {
          currentVersion: params.currentVersion,
          channel: 'stable',
          platform: params.target,
          arch: params.arch,
          signedOnly: true,
        });
        const artifact = upgrade?.artifacts[0];
        res.set('Cache-Control', 'no-store');
        if (!upgrade || !artifact?.signature) {
          res.status(204).end();
          return;
        }
        return {
          version: upgrade.version,
          pub_date: upgrade.publishedAt,
          url: artifact.url,
          signature: artifact.signature,
          notes: upgrade.notes ?? '',
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/license/downloads/:artifactId',
      summary: 'Follow a download link: counts the download, redirects to the file',
      description:
        'The `url` of an offered artifact. Works for 10 minutes after the service made it; redirects (302) to the object store for as long again.',
      tags,
      guard: deps.public,
      before: [deps.panicGuard, deps.limiter],
      params: z.object({ artifactId: z.string() }),
      query: z.object({ expires: z.string().optional(), signature: z.string().optional() }),
      responses: {
        302: { description: 'To the file (Location)' },
        403: { description: 'Invalid or altered link, or this link has expired', schema: errorSchema },
        404: { description: 'Artifact not found (or its release is no longer published)', schema: errorSchema },
        429: { description: 'Too many requests', schema: errorSchema },
        503: { description: 'Panic mode is on', schema: errorSchema },
      },
      handler: async ({ params, query, res }) => {
        const url = await service.download(params.artifactId, query.expires, query.signature);
        res.set('Cache-Control', 'no-store').redirect(302, url);
      },
    }),
  ];
}
