import type { Request } from 'express';
import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { appError } from '../common/error-codes.js';
import { consoleAdminName, consoleWrites, takeFlash, type AuditFailure } from '../console/admin-pages.js';
import { adminLayout } from '../console/layout.js';
import { utcTime } from '../console/utc-time.js';
import type { ReleaseJson } from './releases.presenter.js';
import { createReleaseSchema } from './releases.schema.js';
import { releaseChannels } from './releases.table.js';
import type { ReleasesService } from './releases.service.js';

// The console's Releases page of a product (the JSON API is releases.routes.ts): create a draft,
// upload artifacts from the browser (releases.js: SHA-256, the upload URL with a progress bar,
// complete), publish, yank, delete, download counts. Writes are form posts (post, redirect, get).

const tags = ['pages'];
const pageResponses = {
  200: { description: 'The page', contentType: 'text/html' },
  303: { description: 'Not signed in or two-factor pending: to `/`' },
  403: { description: 'Not an admin', contentType: 'text/html' },
  404: { description: 'No such product', contentType: 'text/html' },
};
const writeResponses = {
  303: { description: 'Done or refused: to the Releases page, which says what happened' },
  403: { description: 'Not an admin, or no valid CSRF token', contentType: 'text/html' },
  404: { description: 'No such product or release', contentType: 'text/html' },
};
const releaseForm = z.object({
  version: z.string().max(200).optional(),
  channel: z.string().max(20).optional(),
  notes: z.string().max(20_000).optional(),
});
const emptyForm = z.object({});

export const releasesHref = (productId: string) => `/products/${encodeURIComponent(productId)}/releases`;

const megabytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;

function releasesPageData(
  username: string,
  product: { _id: string; name: string },
  releases: ReleaseJson[],
  extras: { csrfToken: string; messages: ReturnType<typeof takeFlash> },
) {
  return {
    ...adminLayout(`Releases of ${product.name}`, username, 'products'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    product: { id: product._id, name: product.name, href: `/products/${encodeURIComponent(product._id)}` },
    action: releasesHref(product._id),
    channels: releaseChannels.map((channel) => ({ value: channel, label: channel })),
    releases: releases.map((release) => ({
      id: release._id,
      version: release.version,
      channel: release.channel,
      status: release.status,
      notes: release.notes,
      publishedAt: release.publishedAt ? utcTime(release.publishedAt) : null,
      downloads: release.downloads,
      entitlements: release.entitlements,
      href: `/releases/${encodeURIComponent(release._id)}`,
      artifacts: release.artifacts.map((artifact) => ({
        filename: artifact.filename,
        platform: artifact.platform,
        arch: artifact.arch,
        size: megabytes(artifact.size),
        status: artifact.status,
        downloads: artifact.downloads,
      })),
    })),
  };
}

export function releasePages(deps: {
  service: ReleasesService;
  product: (productId: string) => Promise<{ _id: string; name: string }>;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  auditFailure: AuditFailure;
}): AnyRoute[] {
  const { service } = deps;
  const { writeThenRedirect } = consoleWrites(deps.auditFailure);
  /** A write on a release, back to its product's Releases page. */
  const onRelease = (
    verb: 'publish' | 'yank' | 'delete',
    write: (actor: ReturnType<typeof actorOf>, id: string) => Promise<unknown>,
  ) =>
    defineRoute({
      method: 'post',
      path: `/releases/:id/${verb}`,
      summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} a release (form)`,
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: z.object({ id: z.string() }),
      body: emptyForm,
      responses: writeResponses,
      handler: async ({ params, req, res }) => {
        const release = await service.get(params.id);
        const back = releasesHref(release.productId);
        await writeThenRedirect(req, res, {
          write: async () => {
            await write(actorOf(req), release._id);
            const done = { publish: 'published', yank: 'yanked', delete: 'deleted' }[verb];
            return { to: back, message: { type: 'success', text: `Release ${release.version} ${done}.` } };
          },
          audit: { action: verb, resourceType: 'software-release', resourceId: release._id },
          back,
        });
      },
    });
  return [
    defineRoute({
      method: 'get',
      path: '/products/:productId/releases',
      summary: "A product's Releases page",
      description:
        'Admins: the releases of the product, newest first, with their artifacts and download counts; the form for a new draft; upload, publish, yank and delete.',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      params: z.object({ productId: z.string() }),
      responses: pageResponses,
      handler: async ({ params, req, res }) => {
        const username = consoleAdminName(req);
        const product = await deps.product(params.productId);
        const releases = await service.list(product._id);
        res.render(
          'releases/list',
          releasesPageData(username, product, releases, { csrfToken: deps.csrfToken(req), messages: takeFlash(req) }),
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/products/:productId/releases',
      summary: 'Create a draft release (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: z.object({ productId: z.string() }),
      body: releaseForm,
      responses: writeResponses,
      handler: async ({ params, body, req, res }) => {
        const product = await deps.product(params.productId);
        const back = releasesHref(product._id);
        await writeThenRedirect(req, res, {
          write: async () => {
            const channel = releaseChannels.find((known) => known === body.channel) ?? 'stable';
            const parsed = createReleaseSchema.safeParse({
              version: body.version ?? '',
              channel,
              notes: body.notes || null,
            });
            if (!parsed.success)
              throw appError('VALIDATION_FAILED', {
                message: 'Version: a semantic version such as 1.2.3 or 2.0.0-beta.1',
              });
            const release = await service.create(actorOf(req), product._id, parsed.data);
            return {
              to: back,
              message: { type: 'success', text: `Draft release ${release.version} created: add its files.` },
            };
          },
          audit: { action: 'create', resourceType: 'software-release', resourceId: null },
          back,
        });
      },
    }),
    onRelease('publish', (actor, id) => service.publish(actor, id)),
    onRelease('yank', (actor, id) => service.yank(actor, id)),
    onRelease('delete', (actor, id) => service.remove(actor, id)),
  ];
}
