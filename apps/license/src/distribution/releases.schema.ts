import { z } from 'zod';
import { MAX_OBJECT_BYTES } from '@app/storage';
import { fingerprintSchema } from '../common/fingerprint.js';
import { entitlementCodes } from '../entitlements/entitlements.schema.js';
import { releaseChannels } from './releases.table.js';
import { isReleaseVersion, parseSemVer } from './semver.js';

const version = z.string().trim().refine(isReleaseVersion, 'Must be a semantic version such as 1.2.3 or 2.0.0-beta.1');
const notes = z.string().max(20_000);
/** A name that is also one segment of an object key (letters, digits, `.`, `_`, `-`). */
const fileName = z
  .string()
  .trim()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
    'Must be 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );
const word = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/, 'Must be 1 to 32 letters, digits, "_" or "-"');

export const releaseChannel = z.enum(releaseChannels);

export const createReleaseSchema = z.object({
  version,
  channel: releaseChannel.default('stable'),
  notes: notes.nullish(),
  entitlements: entitlementCodes.optional(),
});
export const updateReleaseSchema = z
  .object({
    channel: releaseChannel.optional(),
    notes: notes.nullish(),
    entitlements: entitlementCodes.optional(),
  })
  .refine((value) => Object.keys(value).length > 0, 'Nothing to update');

export const createArtifactSchema = z.object({
  filename: fileName,
  platform: word,
  arch: word,
  size: z.number().int().min(1).max(MAX_OBJECT_BYTES),
  sha256: z
    .string()
    .trim()
    .regex(/^[0-9A-Fa-f]{64}$/, 'Must be 64 hexadecimal digits')
    .transform((value) => value.toLowerCase()),
  signature: z.string().max(10_000).nullish(),
});

export const releaseParams = z.object({ id: z.string() });
export const artifactParams = z.object({ id: z.string(), artifactId: z.string() });
export const productReleasesParams = z.object({ productId: z.string() });

/** What an application asks `POST /api/license/releases/upgrade`. */
export const upgradeBodySchema = z.object({
  key: z.string().trim().min(1, 'License key is required').max(200),
  fingerprint: fingerprintSchema.optional(),
  currentVersion: z
    .string()
    .trim()
    .max(100)
    .refine((value) => !!parseSemVer(value), 'Must be a semantic version such as 1.2.3'),
  channel: releaseChannel.default('stable'),
  platform: word.optional(),
  arch: word.optional(),
  nonce: z.string().min(1).max(256).optional(),
});

/** Tauri's updater: `{{target}}`, `{{arch}}` and `{{current_version}}` in the endpoint's path. */
export const tauriParams = z.object({
  productId: z.string(),
  target: word,
  arch: word,
  currentVersion: z
    .string()
    .max(100)
    .refine((value) => !!parseSemVer(value), 'Must be a semantic version such as 1.2.3'),
});

export type CreateRelease = z.infer<typeof createReleaseSchema>;
export type UpdateRelease = z.infer<typeof updateReleaseSchema>;
export type CreateArtifact = z.infer<typeof createArtifactSchema>;
export type UpgradeBody = z.infer<typeof upgradeBodySchema>;
