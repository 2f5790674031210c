import { z } from 'zod';
import { iso } from '../common/schemas.js';
import { releaseChannels, releaseStatuses } from './releases.table.js';
import type { ArtifactRow, ReleaseRow } from './releases.repository.js';

/** An artifact as admins see it: `status` `waiting` until its bytes were checked, then `uploaded`. */
export const artifactJson = (row: ArtifactRow) => ({
  _id: row.id,
  releaseId: row.release_id,
  filename: row.filename,
  platform: row.platform,
  arch: row.arch,
  size: row.size,
  sha256: row.sha256,
  signature: row.signature,
  status: row.uploaded_at ? ('uploaded' as const) : ('waiting' as const),
  uploadedAt: iso(row.uploaded_at),
  downloads: row.downloads,
  createdAt: iso(row.created_at)!,
});
export type ArtifactJson = ReturnType<typeof artifactJson>;

/** The Release resource (decisions.md, wave 4), with its artifacts. */
export const releaseJson = (row: ReleaseRow, artifacts: ArtifactRow[]) => ({
  _id: row.id,
  productId: row.product_id,
  version: row.version,
  channel: row.channel,
  notes: row.notes,
  entitlements: row.entitlements,
  status: row.status,
  publishedAt: iso(row.published_at),
  yankedAt: iso(row.yanked_at),
  artifacts: artifacts.map(artifactJson),
  downloads: artifacts.reduce((sum, artifact) => sum + artifact.downloads, 0),
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
});
export type ReleaseJson = ReturnType<typeof releaseJson>;

export const artifactJsonSchema = z.object({
  _id: z.string(),
  releaseId: z.string(),
  filename: z.string(),
  platform: z.string(),
  arch: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  signature: z.string().nullable(),
  status: z.enum(['waiting', 'uploaded']),
  uploadedAt: z.iso.datetime().nullable(),
  downloads: z.number().int(),
  createdAt: z.iso.datetime(),
});

export const releaseJsonSchema = z.object({
  _id: z.string(),
  productId: z.string(),
  version: z.string(),
  channel: z.enum(releaseChannels),
  notes: z.string().nullable(),
  entitlements: z.array(z.string()),
  status: z.enum(releaseStatuses),
  publishedAt: z.iso.datetime().nullable(),
  yankedAt: z.iso.datetime().nullable(),
  artifacts: z.array(artifactJsonSchema),
  /** Downloads of all its artifacts. */
  downloads: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/** A release as an application or a customer is offered it: each artifact with a URL that lapses. */
export const offeredReleaseSchema = z.object({
  version: z.string(),
  channel: z.enum(releaseChannels),
  publishedAt: z.iso.datetime(),
  notes: z.string().nullable(),
  artifacts: z.array(
    z.object({
      filename: z.string(),
      platform: z.string(),
      arch: z.string(),
      size: z.number().int(),
      sha256: z.string(),
      signature: z.string().nullable(),
      url: z.url(),
    }),
  ),
});
export type OfferedRelease = z.infer<typeof offeredReleaseSchema>;
