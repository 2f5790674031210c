import { z } from 'zod';
import { parseRows, type Queryable, type RowOf, tableRows } from '@app/db';
import { releaseArtifacts, releases, type ReleaseStatus } from './releases.table.js';
import type { CreateArtifact, CreateRelease, UpdateRelease } from './releases.schema.js';

export type ReleaseRow = RowOf<typeof releases>;
export type ArtifactRow = RowOf<typeof releaseArtifacts>;

const releaseRows = tableRows(releases);
const artifactRows = tableRows(releaseArtifacts);
const storageKeyRow = z.object({ storage_key: z.string() });

/** Every release of a product, newest first (by creation; the service sorts by version where it matters). */
export async function listReleases(
  db: Queryable,
  productId: string,
  options: { status?: ReleaseStatus } = {},
): Promise<ReleaseRow[]> {
  const { rows } = await db.query(
    `SELECT * FROM releases WHERE product_id = $1 AND ($2::text IS NULL OR status = $2)
      ORDER BY created_at DESC, id`,
    [productId, options.status ?? null],
  );
  return releaseRows(rows);
}

/** The published releases of these products (the portal's downloads, the upgrade choice). */
export async function publishedReleasesOf(db: Queryable, productIds: string[]): Promise<ReleaseRow[]> {
  if (!productIds.length) return [];
  const { rows } = await db.query(
    `SELECT * FROM releases WHERE product_id = ANY($1::uuid[]) AND status = 'published' ORDER BY published_at DESC, id`,
    [productIds],
  );
  return releaseRows(rows);
}

/** `lock`: FOR UPDATE, so a publish and an upload's completion do not cross. */
export async function findRelease(
  db: Queryable,
  id: string,
  options: { lock?: boolean } = {},
): Promise<ReleaseRow | undefined> {
  const { rows } = await db.query(`SELECT * FROM releases WHERE id = $1 ${options.lock ? 'FOR UPDATE' : ''}`, [id]);
  return releaseRows(rows)[0];
}

export async function insertRelease(db: Queryable, productId: string, input: CreateRelease): Promise<ReleaseRow> {
  const { rows } = await db.query(
    `INSERT INTO releases (product_id, version, channel, notes, entitlements)
     VALUES ($1, $2, $3, $4, $5::text[]) RETURNING *`,
    [productId, input.version, input.channel, input.notes ?? null, input.entitlements ?? []],
  );
  return releaseRows(rows)[0]!;
}

export async function updateRelease(db: Queryable, id: string, input: UpdateRelease): Promise<ReleaseRow | undefined> {
  const { rows } = await db.query(
    `UPDATE releases SET channel = coalesce($2, channel),
            notes = CASE WHEN $3::boolean THEN $4 ELSE notes END,
            entitlements = coalesce($5::text[], entitlements), updated_at = now()
      WHERE id = $1 RETURNING *`,
    [id, input.channel ?? null, input.notes !== undefined, input.notes ?? null, input.entitlements ?? null],
  );
  return releaseRows(rows)[0];
}

/** Publishing sets `published_at` once: a release yanked and published again keeps its first date. */
export async function setReleaseStatus(
  db: Queryable,
  id: string,
  status: ReleaseStatus,
  at: Date,
): Promise<ReleaseRow> {
  const { rows } = await db.query(
    `UPDATE releases SET status = $2,
            published_at = CASE WHEN $2 = 'published' THEN coalesce(published_at, $3) ELSE published_at END,
            yanked_at = CASE WHEN $2 = 'yanked' THEN $3 ELSE NULL END,
            updated_at = now()
      WHERE id = $1 RETURNING *`,
    [id, status, at],
  );
  return releaseRows(rows)[0]!;
}

export async function deleteRelease(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM releases WHERE id = $1', [id]);
}

/** The artifacts of these releases, by file name. */
export async function listArtifacts(db: Queryable, releaseIds: string[]): Promise<ArtifactRow[]> {
  if (!releaseIds.length) return [];
  const { rows } = await db.query(
    'SELECT * FROM release_artifacts WHERE release_id = ANY($1::uuid[]) ORDER BY filename COLLATE "C"',
    [releaseIds],
  );
  return artifactRows(rows);
}

export async function findArtifact(
  db: Queryable,
  releaseId: string,
  artifactId: string,
): Promise<ArtifactRow | undefined> {
  const { rows } = await db.query('SELECT * FROM release_artifacts WHERE id = $1 AND release_id = $2', [
    artifactId,
    releaseId,
  ]);
  return artifactRows(rows)[0];
}

/** An artifact by its id alone, with its release's product and status (a download link names only the artifact). */
export async function findArtifactForDownload(db: Queryable, artifactId: string) {
  const { rows } = await db.query('SELECT * FROM release_artifacts WHERE id = $1', [artifactId]);
  return artifactRows(rows)[0];
}

export async function insertArtifact(
  db: Queryable,
  releaseId: string,
  input: CreateArtifact & { id: string; storageKey: string },
): Promise<ArtifactRow> {
  const { rows } = await db.query(
    `INSERT INTO release_artifacts (id, release_id, filename, platform, arch, size, sha256, signature, storage_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [
      input.id,
      releaseId,
      input.filename,
      input.platform,
      input.arch,
      input.size,
      input.sha256,
      input.signature ?? null,
      input.storageKey,
    ],
  );
  return artifactRows(rows)[0]!;
}

export async function markArtifactUploaded(db: Queryable, artifactId: string, at: Date): Promise<ArtifactRow> {
  const { rows } = await db.query('UPDATE release_artifacts SET uploaded_at = $2 WHERE id = $1 RETURNING *', [
    artifactId,
    at,
  ]);
  return artifactRows(rows)[0]!;
}

export async function deleteArtifact(db: Queryable, artifactId: string): Promise<void> {
  await db.query('DELETE FROM release_artifacts WHERE id = $1', [artifactId]);
}

/** One more download of the artifact. */
export async function countDownload(db: Queryable, artifactId: string): Promise<void> {
  await db.query('UPDATE release_artifacts SET downloads = downloads + 1 WHERE id = $1', [artifactId]);
}

/** Keys of deleted artifacts whose objects are still in the store, oldest first (filled by migration 0024's trigger). */
export async function queuedRemovals(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query(
    'SELECT storage_key FROM release_object_removals ORDER BY queued_at, storage_key LIMIT $1',
    [limit],
  );
  return parseRows(storageKeyRow, rows).map((row) => row.storage_key);
}

export async function forgetRemoval(db: Queryable, storageKey: string): Promise<void> {
  await db.query('DELETE FROM release_object_removals WHERE storage_key = $1', [storageKey]);
}

/** Which of `keys` belong to an artifact. */
export async function artifactKeys(db: Queryable, keys: string[]): Promise<Set<string>> {
  const { rows } = await db.query('SELECT storage_key FROM release_artifacts WHERE storage_key = ANY($1::text[])', [
    keys,
  ]);
  return new Set(parseRows(storageKeyRow, rows).map((row) => row.storage_key));
}
