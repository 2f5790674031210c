import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, conflict, notFound, one, page, successSchema, validationFailure } from '../common/responses.js';
import { artifactJsonSchema, releaseJsonSchema } from './releases.presenter.js';
import {
  artifactParams,
  createArtifactSchema,
  createReleaseSchema,
  productReleasesParams,
  releaseParams,
  updateReleaseSchema,
} from './releases.schema.js';
import type { ReleasesService } from './releases.service.js';

const tags = ['releases'];
const uploadFields = {
  uploadUrl: z.url(),
  /** Headers to send with the PUT as they are (none with today's stores). */
  uploadHeaders: z.record(z.string(), z.string()),
  uploadExpiresAt: z.iso.datetime(),
};

/** The admin API of software releases and their artifacts (decisions.md, wave 4). */
export function releaseRoutes(deps: { service: ReleasesService; admin: Guard }): AnyRoute[] {
  const { service, admin } = deps;
  const release = one('release', releaseJsonSchema);
  return [
    defineRoute({
      method: 'get',
      path: '/api/products/:productId/releases',
      summary: "List a product's releases (newest first), with their artifacts and download counts",
      tags,
      guard: admin,
      params: productReleasesParams,
      responses: {
        200: { description: 'The releases', schema: page('releases', releaseJsonSchema) },
        ...adminFailures,
        ...notFound('Product'),
      },
      handler: async ({ params }) => {
        const releases = await service.list(params.productId);
        return { success: true, releases, count: releases.length };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/products/:productId/releases',
      summary: 'Create a draft release',
      description:
        'A semantic version, once per product; `channel` `stable` (default), `rc`, `beta`, `alpha` or `dev`; `entitlements`: codes a license must hold to be offered it.',
      tags,
      guard: admin,
      params: productReleasesParams,
      body: createReleaseSchema,
      status: 201,
      audit: { action: 'create', resource: 'software-release' },
      responses: {
        201: { description: 'The draft release', schema: release },
        ...validationFailure,
        ...adminFailures,
        ...notFound('Product'),
        ...conflict('Release already exists (the version is taken)'),
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        release: await service.create(actorOf(req), params.productId, body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/releases/:id',
      summary: 'Read a release',
      tags,
      guard: admin,
      params: releaseParams,
      responses: { 200: { description: 'The release', schema: release }, ...adminFailures, ...notFound('Release') },
      handler: async ({ params }) => ({ success: true, release: await service.get(params.id) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/releases/:id',
      summary: "Change a release's channel, notes or entitlements",
      tags,
      guard: admin,
      params: releaseParams,
      body: updateReleaseSchema,
      audit: { action: 'update', resource: 'software-release' },
      responses: {
        200: { description: 'The release', schema: release },
        ...validationFailure,
        ...adminFailures,
        ...notFound('Release'),
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        release: await service.update(actorOf(req), params.id, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/releases/:id',
      summary: 'Delete a draft or yanked release and its files',
      tags,
      guard: admin,
      params: releaseParams,
      audit: { action: 'delete', resource: 'software-release' },
      responses: {
        200: { description: 'Deleted', schema: successSchema },
        ...adminFailures,
        ...notFound('Release'),
        ...conflict('Release is published: yank it before deleting it'),
      },
      handler: async ({ params, req }) => {
        await service.remove(actorOf(req), params.id);
        return { success: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/releases/:id/publish',
      summary: 'Publish a release (every artifact uploaded)',
      tags,
      guard: admin,
      params: releaseParams,
      audit: { action: 'publish', resource: 'software-release' },
      responses: {
        200: { description: 'The published release', schema: release },
        ...adminFailures,
        ...notFound('Release'),
        ...conflict('Artifacts missing (none, or one without its bytes)'),
      },
      handler: async ({ params, req }) => ({ success: true, release: await service.publish(actorOf(req), params.id) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/releases/:id/yank',
      summary: 'Yank a published release: offered to nobody, its download links stop working',
      tags,
      guard: admin,
      params: releaseParams,
      audit: { action: 'yank', resource: 'software-release' },
      responses: {
        200: { description: 'The yanked release', schema: release },
        ...adminFailures,
        ...notFound('Release'),
        ...conflict('Release is not published'),
      },
      handler: async ({ params, req }) => ({ success: true, release: await service.yank(actorOf(req), params.id) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/releases/:id/artifacts',
      summary: 'Add an artifact to a draft: answers the URL its bytes are PUT to',
      description:
        'Send exactly `size` bytes with `PUT uploadUrl` within 10 minutes, then `POST .../complete`: the service reads them back and keeps them only when their size and SHA-256 match.',
      tags,
      guard: admin,
      params: releaseParams,
      body: createArtifactSchema,
      status: 201,
      audit: { action: 'update', resource: 'software-release' },
      responses: {
        201: {
          description: 'The artifact (waiting) and its upload URL',
          schema: z.object({ success: z.literal(true), artifact: artifactJsonSchema, ...uploadFields }),
        },
        ...validationFailure,
        ...adminFailures,
        ...notFound('Release'),
        ...conflict('Release is not a draft, or an artifact of that file name exists'),
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        ...(await service.addArtifact(actorOf(req), params.id, body)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/releases/:id/artifacts/:artifactId/upload-url',
      summary: 'A new upload URL for an artifact still waiting for its bytes',
      tags,
      guard: admin,
      params: artifactParams,
      responses: {
        200: { description: 'The upload URL', schema: z.object({ success: z.literal(true), ...uploadFields }) },
        ...adminFailures,
        ...notFound('Release or artifact'),
        ...conflict('Release is not a draft'),
      },
      handler: async ({ params }) => ({ success: true, ...(await service.uploadUrl(params.id, params.artifactId)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/releases/:id/artifacts/:artifactId/complete',
      summary: "Check an artifact's uploaded bytes (size and SHA-256)",
      tags,
      guard: admin,
      params: artifactParams,
      audit: { action: 'update', resource: 'software-release' },
      responses: {
        200: { description: 'The artifact, uploaded', schema: one('artifact', artifactJsonSchema) },
        400: {
          description:
            "Upload does not match the artifact's size or SHA-256 (the bytes are deleted; the artifact stays waiting)",
          schema: z.object({
            success: z.literal(false),
            error: z.string(),
            details: z.record(z.string(), z.unknown()).optional(),
          }),
        },
        ...adminFailures,
        ...notFound('Release or artifact'),
        ...conflict('Artifact not uploaded'),
      },
      handler: async ({ params, req }) => ({
        success: true,
        artifact: await service.completeArtifact(actorOf(req), params.id, params.artifactId),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/releases/:id/artifacts/:artifactId',
      summary: 'Remove an artifact of a draft, and its bytes',
      tags,
      guard: admin,
      params: artifactParams,
      audit: { action: 'update', resource: 'software-release' },
      responses: {
        200: { description: 'Removed', schema: successSchema },
        ...adminFailures,
        ...notFound('Release or artifact'),
        ...conflict('Release is not a draft'),
      },
      handler: async ({ params, req }) => {
        await service.removeArtifact(actorOf(req), params.id, params.artifactId);
        return { success: true };
      },
    }),
  ];
}
