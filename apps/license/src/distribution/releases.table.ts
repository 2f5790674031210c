import { sql } from 'drizzle-orm';
import { bigint, check, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { products } from '../products/products.table.js';

/** How stable a release is, most stable first: asking for a channel also offers the ones before it. */
export const releaseChannels = ['stable', 'rc', 'beta', 'alpha', 'dev'] as const;
export type ReleaseChannel = (typeof releaseChannels)[number];
export const releaseStatuses = ['draft', 'published', 'yanked'] as const;
export type ReleaseStatus = (typeof releaseStatuses)[number];

/**
 * Software releases of a product (decisions.md, wave 4, "releases and update feeds"): one per
 * version, on a channel, granted to licenses that hold every code of `entitlements`. Not the
 * customer's release of a device (licenses/license-releases.table.ts).
 */
export const releases = pgTable(
  'releases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    version: text('version').notNull(),
    channel: text('channel').$type<ReleaseChannel>().notNull().default('stable'),
    notes: text('notes'),
    /** Entitlement codes a license must hold, sorted (checked against `entitlements` when written). */
    entitlements: text('entitlements')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    status: text('status').$type<ReleaseStatus>().notNull().default('draft'),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    yankedAt: timestamp('yanked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    uniqueIndex('releases_product_version_idx').on(table.productId, table.version),
    check('releases_channel_check', sql`${table.channel} in ('stable', 'rc', 'beta', 'alpha', 'dev')`),
    check('releases_status_check', sql`${table.status} in ('draft', 'published', 'yanked')`),
  ],
);

/**
 * The files of a release, one per platform and architecture (or more). The bytes live in the
 * object store under `storageKey`; `uploadedAt` is set once they were checked against `size` and
 * `sha256`, and a release is published only when every artifact has them.
 */
export const releaseArtifacts = pgTable(
  'release_artifacts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    releaseId: uuid('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    platform: text('platform').notNull(),
    arch: text('arch').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** Lower-case hex. */
    sha256: text('sha256').notNull(),
    /** The updater's own signature of the file (Tauri: the content of its `.sig`). */
    signature: text('signature'),
    storageKey: text('storage_key').notNull(),
    uploadedAt: timestamp('uploaded_at', { withTimezone: true }),
    downloads: integer('downloads').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    uniqueIndex('release_artifacts_filename_idx').on(table.releaseId, table.filename),
    uniqueIndex('release_artifacts_storage_key_idx').on(table.storageKey),
  ],
);

/**
 * Objects of deleted artifacts still to be removed from the store (migration 0024): queued by a
 * trigger whenever an artifact row goes, however it goes (its release or product deleted too),
 * and dropped once the store has let the object go.
 */
export const releaseObjectRemovals = pgTable('release_object_removals', {
  storageKey: text('storage_key').primaryKey(),
  queuedAt: timestamp('queued_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});
