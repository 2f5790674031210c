import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { uniqueViolation, withTransaction } from '@app/db';
import type { Logger } from '@app/http';
import { removePendingObjects, sweepOrphanObjects, type ObjectStore } from '@app/storage';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { appError } from '../common/error-codes.js';
import { isUuid } from '../common/schemas.js';
import { entitlementIdsOf } from '../entitlements/entitlements.service.js';
import { licenseJson } from '../licenses/licenses.presenter.js';
import { licensesOfCustomer } from '../licenses/licenses.service.js';
import type { DownloadLinks } from './download-links.js';
import { releaseJson, type OfferedRelease, type ReleaseJson } from './releases.presenter.js';
import * as repo from './releases.repository.js';
import type { CreateArtifact, CreateRelease, UpdateRelease } from './releases.schema.js';
import { releaseChannels, type ReleaseChannel } from './releases.table.js';
import { compareSemVer, parseSemVer } from './semver.js';

const releaseNotFound = () => appError('RELEASE_NOT_FOUND');
const artifactNotFound = () => appError('ARTIFACT_NOT_FOUND');

/** What the release rules need to know of a license that validated (validate's answer). */
export interface LicenseForReleases {
  productId: string;
  entitlements: string[];
  expiresAt: string | null;
  /** A `maintain` license past its expiry: only releases published before `expiresAt`. */
  expired?: true;
}

/** What an application or a customer asks for: above a version, on a channel, for a platform. */
export interface ReleaseWish {
  currentVersion?: string;
  channel: ReleaseChannel;
  platform?: string;
  arch?: string;
  /** Only artifacts that carry the updater's signature (Tauri refuses an update without one). */
  signedOnly?: boolean;
}

/** Objects removed per run of the removal job (it runs every minute; more wait for the next). */
const REMOVALS_PER_RUN = 500;
/** Where artifacts' objects live in the store: `releases/<release>/<artifact>/<filename>`. */
export const ARTIFACT_PREFIX = 'releases/';

const stability = (channel: ReleaseChannel) => releaseChannels.indexOf(channel);

/** Whether the license may have this release: every entitlement held, and (maintain, expired) published before expiry. */
export function licenseCovers(license: LicenseForReleases, release: repo.ReleaseRow): boolean {
  const held = new Set(license.entitlements);
  if (!release.entitlements.every((code) => held.has(code))) return false;
  if (license.expired && license.expiresAt && release.published_at) {
    return release.published_at.getTime() < new Date(license.expiresAt).getTime();
  }
  return true;
}

/**
 * The newest published release above `currentVersion` on the channel asked or a more stable one,
 * that the license covers and that has an artifact for the platform and arch asked (when asked).
 */
export function chooseUpgrade(
  license: LicenseForReleases,
  wish: ReleaseWish,
  candidates: Array<{ release: repo.ReleaseRow; artifacts: repo.ArtifactRow[] }>,
) {
  const current = wish.currentVersion ? parseSemVer(wish.currentVersion) : undefined;
  let best:
    | { release: repo.ReleaseRow; artifacts: repo.ArtifactRow[]; version: NonNullable<ReturnType<typeof parseSemVer>> }
    | undefined;
  for (const candidate of candidates) {
    const { release } = candidate;
    if (release.status !== 'published' || release.product_id !== license.productId) continue;
    if (stability(release.channel) > stability(wish.channel)) continue;
    const version = parseSemVer(release.version);
    if (!version || (current && compareSemVer(version, current) <= 0)) continue;
    if (!licenseCovers(license, release)) continue;
    const artifacts = candidate.artifacts.filter(
      (artifact) =>
        artifact.uploaded_at &&
        (!wish.signedOnly || artifact.signature) &&
        (!wish.platform || artifact.platform === wish.platform) &&
        (!wish.arch || artifact.arch === wish.arch),
    );
    if (!artifacts.length) continue;
    if (!best || compareSemVer(version, best.version) > 0) best = { release, artifacts, version };
  }
  return best && { release: best.release, artifacts: best.artifacts };
}

export function createReleasesService(deps: {
  pool: pg.Pool;
  now: () => Date;
  store: ObjectStore;
  links: DownloadLinks;
  logger: Pick<Logger, 'warn'>;
  /** Throws PRODUCT_NOT_FOUND for a product that is not there. */
  productExists: (productId: string) => Promise<unknown>;
}) {
  const { pool, now, store, links } = deps;

  /**
   * Removes queued objects of deleted artifacts (migration 0024's trigger queues them with the
   * deletion), `keys` only or the oldest queued; a store that is down keeps them queued for the
   * next run. Answers how many were removed.
   */
  const removeQueuedObjects = (keys?: string[]) =>
    removePendingObjects(
      store,
      {
        due: (limit) => (keys ? Promise.resolve(keys) : repo.queuedRemovals(pool, limit)),
        keyOf: (key) => key,
        forget: (key) => repo.forgetRemoval(pool, key),
      },
      { limit: REMOVALS_PER_RUN, warn: (fields, message) => deps.logger.warn(fields, message) },
    );

  const withArtifacts = async (rows: repo.ReleaseRow[]) => {
    const artifacts = await repo.listArtifacts(
      pool,
      rows.map((row) => row.id),
    );
    return rows.map((release) => ({
      release,
      artifacts: artifacts.filter((artifact) => artifact.release_id === release.id),
    }));
  };
  const json = async (client: pg.Pool | pg.PoolClient, row: repo.ReleaseRow): Promise<ReleaseJson> =>
    releaseJson(row, await repo.listArtifacts(client, [row.id]));
  const lockedOrThrow = async (client: pg.PoolClient, id: string) => {
    const row = isUuid(id) ? await repo.findRelease(client, id, { lock: true }) : undefined;
    if (!row) throw releaseNotFound();
    return row;
  };
  const artifactOf = async (client: pg.Pool | pg.PoolClient, releaseId: string, artifactId: string) => {
    const row = isUuid(artifactId) ? await repo.findArtifact(client, releaseId, artifactId) : undefined;
    if (!row) throw artifactNotFound();
    return row;
  };
  const audit = (
    client: pg.PoolClient,
    actor: Actor,
    action: 'create' | 'update' | 'delete' | 'publish' | 'yank',
    id: string,
    before?: object,
    after?: object,
  ) =>
    recordAudit(client, actor, {
      action,
      resourceType: 'software-release',
      resourceId: id,
      before: (before as Record<string, unknown>) ?? null,
      after: (after as Record<string, unknown>) ?? null,
    });

  /** An artifact offered to a license holder: its URL counts the download and works for 10 minutes. */
  const offered = (release: repo.ReleaseRow, artifacts: repo.ArtifactRow[]): OfferedRelease => ({
    version: release.version,
    channel: release.channel,
    publishedAt: release.published_at!.toISOString(),
    notes: release.notes,
    artifacts: artifacts.map((artifact) => ({
      filename: artifact.filename,
      platform: artifact.platform,
      arch: artifact.arch,
      size: artifact.size,
      sha256: artifact.sha256,
      signature: artifact.signature,
      url: links.make(artifact.id),
    })),
  });

  /** Every published release these licenses cover (the portal's Downloads), newest first per product. */
  const downloadsFor = async (licenses: LicenseForReleases[]) => {
    const productIds = [...new Set(licenses.map((license) => license.productId))];
    const rows = await repo.publishedReleasesOf(pool, productIds);
    const covered = rows.filter((release) =>
      licenses.some((license) => license.productId === release.product_id && licenseCovers(license, release)),
    );
    const sorted = (await withArtifacts(covered)).sort(
      (a, b) =>
        a.release.product_id.localeCompare(b.release.product_id) ||
        compareSemVer(parseSemVer(b.release.version)!, parseSemVer(a.release.version)!),
    );
    return sorted.map(({ release, artifacts }) => ({
      productId: release.product_id,
      ...offered(
        release,
        artifacts.filter((artifact) => artifact.uploaded_at),
      ),
    }));
  };

  return {
    async list(productId: string) {
      await deps.productExists(productId);
      const rows = await repo.listReleases(pool, productId);
      return (await withArtifacts(rows)).map(({ release, artifacts }) => releaseJson(release, artifacts));
    },

    async get(id: string) {
      const row = isUuid(id) ? await repo.findRelease(pool, id) : undefined;
      if (!row) throw releaseNotFound();
      return json(pool, row);
    },

    async create(actor: Actor, productId: string, input: CreateRelease) {
      await deps.productExists(productId);
      try {
        return await withTransaction(pool, async (client) => {
          if (input.entitlements?.length) await entitlementIdsOf(client, input.entitlements);
          const release = releaseJson(await repo.insertRelease(client, productId, input), []);
          await audit(client, actor, 'create', release._id, undefined, release);
          return release;
        });
      } catch (error) {
        if (uniqueViolation(error) === 'releases_product_version_idx') throw appError('RELEASE_EXISTS');
        throw error;
      }
    },

    update: (actor: Actor, id: string, input: UpdateRelease) =>
      withTransaction(pool, async (client) => {
        const before = await json(client, await lockedOrThrow(client, id));
        if (input.entitlements?.length) await entitlementIdsOf(client, input.entitlements);
        const release = await json(client, (await repo.updateRelease(client, id, input))!);
        await audit(client, actor, 'update', id, before, release);
        return release;
      }),

    /** Drafts and yanked releases only; their bytes go with them (or with the removal job while the store is down). */
    async remove(actor: Actor, id: string) {
      const keys = await withTransaction(pool, async (client) => {
        const row = await lockedOrThrow(client, id);
        if (row.status === 'published') throw appError('RELEASE_PUBLISHED');
        const before = await json(client, row);
        const artifacts = await repo.listArtifacts(client, [id]);
        await repo.deleteRelease(client, id);
        await audit(client, actor, 'delete', id, before);
        return artifacts.map((artifact) => artifact.storage_key);
      });
      await removeQueuedObjects(keys);
    },

    /** 409 `Artifacts missing` while the release has no artifact or one without its checked bytes. */
    publish: (actor: Actor, id: string) =>
      withTransaction(pool, async (client) => {
        const row = await lockedOrThrow(client, id);
        const before = await json(client, row);
        if (row.status === 'published') return before;
        if (!before.artifacts.length || before.artifacts.some((artifact) => artifact.status !== 'uploaded'))
          throw appError('ARTIFACTS_MISSING');
        const release = await json(client, await repo.setReleaseStatus(client, id, 'published', now()));
        await audit(client, actor, 'publish', id, before, release);
        return release;
      }),

    /** A yanked release is offered to nobody and its links stop working; publishing it again brings it back. */
    yank: (actor: Actor, id: string) =>
      withTransaction(pool, async (client) => {
        const row = await lockedOrThrow(client, id);
        const before = await json(client, row);
        if (row.status === 'yanked') return before;
        if (row.status !== 'published') throw appError('RELEASE_NOT_PUBLISHED');
        const release = await json(client, await repo.setReleaseStatus(client, id, 'yanked', now()));
        await audit(client, actor, 'yank', id, before, release);
        return release;
      }),

    /** A new artifact of a draft and the URL its bytes go to (exactly `size` bytes, for 10 minutes). */
    async addArtifact(actor: Actor, releaseId: string, input: CreateArtifact) {
      const artifactId = randomUUID();
      try {
        const artifact = await withTransaction(pool, async (client) => {
          const row = await lockedOrThrow(client, releaseId);
          if (row.status !== 'draft') throw appError('RELEASE_NOT_DRAFT');
          const before = await json(client, row);
          await repo.insertArtifact(client, releaseId, {
            ...input,
            id: artifactId,
            storageKey: `${ARTIFACT_PREFIX}${releaseId}/${artifactId}/${input.filename}`,
          });
          const after = await json(client, row);
          await audit(client, actor, 'update', releaseId, before, after);
          return after.artifacts.find((found) => found._id === artifactId)!;
        });
        const upload = await store.uploadUrl(`${ARTIFACT_PREFIX}${releaseId}/${artifactId}/${input.filename}`, {
          size: input.size,
        });
        return { artifact, uploadUrl: upload.url, uploadHeaders: upload.headers, uploadExpiresAt: upload.expiresAt };
      } catch (error) {
        if (uniqueViolation(error) === 'release_artifacts_filename_idx') throw appError('ARTIFACT_EXISTS');
        throw error;
      }
    },

    /** Another upload URL for an artifact still waiting for its bytes (the first one lapsed, or they were refused). */
    async uploadUrl(releaseId: string, artifactId: string) {
      const release = isUuid(releaseId) ? await repo.findRelease(pool, releaseId) : undefined;
      if (!release) throw releaseNotFound();
      if (release.status !== 'draft') throw appError('RELEASE_NOT_DRAFT');
      const artifact = await artifactOf(pool, releaseId, artifactId);
      const upload = await store.uploadUrl(artifact.storage_key, { size: artifact.size });
      return { uploadUrl: upload.url, uploadHeaders: upload.headers, uploadExpiresAt: upload.expiresAt };
    },

    /**
     * Checks the bytes sent to the upload URL: exactly `size` of them whose SHA-256 is `sha256`
     * (read back from the store as a stream). Other bytes are deleted and refused (400), and the
     * artifact stays waiting; no bytes at all: 409 `Artifact not uploaded`.
     */
    async completeArtifact(actor: Actor, releaseId: string, artifactId: string) {
      const release = isUuid(releaseId) ? await repo.findRelease(pool, releaseId) : undefined;
      if (!release) throw releaseNotFound();
      const artifact = await artifactOf(pool, releaseId, artifactId);
      if (artifact.uploaded_at) return (await json(pool, release)).artifacts.find((found) => found._id === artifactId)!;
      const info = await store.head(artifact.storage_key);
      if (!info) throw appError('ARTIFACT_NOT_UPLOADED');
      let sha256: string | undefined;
      if (info.size === artifact.size) {
        const hash = createHash('sha256');
        for await (const piece of await store.get(artifact.storage_key)) hash.update(piece as Buffer);
        sha256 = hash.digest('hex');
      }
      if (info.size !== artifact.size || sha256 !== artifact.sha256) {
        await store.delete(artifact.storage_key);
        throw appError('ARTIFACT_MISMATCH', {
          details: {
            size: { expected: artifact.size, received: info.size },
            ...(sha256 ? { sha256: { expected: artifact.sha256, received: sha256 } } : {}),
          },
        });
      }
      return withTransaction(pool, async (client) => {
        const row = await lockedOrThrow(client, releaseId);
        const before = await json(client, row);
        await repo.markArtifactUploaded(client, artifactId, now());
        const after = await json(client, row);
        await audit(client, actor, 'update', releaseId, before, after);
        return after.artifacts.find((found) => found._id === artifactId)!;
      });
    },

    /** Removes an artifact of a draft, and its bytes (or queues them while the store is down). */
    async removeArtifact(actor: Actor, releaseId: string, artifactId: string) {
      const key = await withTransaction(pool, async (client) => {
        const row = await lockedOrThrow(client, releaseId);
        if (row.status !== 'draft') throw appError('RELEASE_NOT_DRAFT');
        const artifact = await artifactOf(client, releaseId, artifactId);
        const before = await json(client, row);
        await repo.deleteArtifact(client, artifactId);
        await audit(client, actor, 'update', releaseId, before, await json(client, row));
        return artifact.storage_key;
      });
      await removeQueuedObjects([key]);
    },

    /** The removal job: objects of artifacts deleted while the store was down, or with their product. */
    removeQueuedObjects: () => removeQueuedObjects(),

    /**
     * Compares the store with the artifacts: removes every object under `releases/` that no
     * artifact names (bytes uploaded after their artifact was deleted, a row deleted by hand).
     */
    sweepOrphanObjects: () =>
      sweepOrphanObjects(store, { prefix: ARTIFACT_PREFIX, known: (keys) => repo.artifactKeys(pool, keys) }),

    /** The upgrade a license is offered (null when none): see chooseUpgrade. */
    async upgradeFor(license: LicenseForReleases, wish: ReleaseWish): Promise<OfferedRelease | null> {
      const rows = await repo.publishedReleasesOf(pool, [license.productId]);
      const chosen = chooseUpgrade(license, wish, await withArtifacts(rows));
      return chosen ? offered(chosen.release, chosen.artifacts) : null;
    },

    downloadsFor,

    /**
     * The portal's Downloads: the published releases the customer's licenses cover, as validation
     * would (active, not suspended or revoked; past expiry only within the grace days, or with
     * `maintain` the releases published before `expiresAt`), each file with a fresh link.
     */
    async downloadsForCustomer(customerId: string) {
      const at = now().getTime();
      const products = new Map<string, string>();
      const usable: LicenseForReleases[] = [];
      for (const row of await licensesOfCustomer(pool, customerId)) {
        const license = licenseJson(row);
        products.set(license.product._id, license.product.name);
        if (!license.active || license.suspended || license.revoked) continue;
        const ends = license.expiresAt ? new Date(license.expiresAt).getTime() : Infinity;
        const covered = {
          productId: license.product._id,
          entitlements: license.effectiveEntitlements,
          expiresAt: license.expiresAt,
        };
        if (at < ends) usable.push(covered);
        else if (license.expirationStrategy === 'maintain') usable.push({ ...covered, expired: true });
        else if (at < ends + license.graceDays * 86_400_000) usable.push(covered);
      }
      const downloads = await downloadsFor(usable);
      return downloads.map((release) => ({ ...release, productName: products.get(release.productId) ?? '' }));
    },

    /**
     * Follows a download link: counts the download and answers the store's URL of the bytes
     * (10 minutes). An altered or lapsed link is 403; an artifact of a release no longer
     * published is 404.
     */
    async download(artifactId: string, expires: string | undefined, signature: string | undefined) {
      const verdict = isUuid(artifactId) ? links.check(artifactId, expires, signature) : 'invalid';
      if (verdict === 'invalid') throw appError('DOWNLOAD_LINK_INVALID');
      if (verdict === 'expired') throw appError('DOWNLOAD_LINK_EXPIRED');
      const artifact = await repo.findArtifactForDownload(pool, artifactId);
      const release = artifact && (await repo.findRelease(pool, artifact.release_id));
      if (!artifact || !release || release.status !== 'published' || !artifact.uploaded_at) throw artifactNotFound();
      await repo.countDownload(pool, artifactId);
      return (await store.downloadUrl(artifact.storage_key, { fileName: artifact.filename })).url;
    },
  };
}
export type ReleasesService = ReturnType<typeof createReleasesService>;
