import { createBatcher, parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import type { pastesTable } from './pastes.table.js';

type PasteRow = typeof pastesTable.$inferSelect;

export type NewPaste = Pick<PasteRow, 'slug' | 'content' | 'passwordHash' | 'maxViews'> &
  Partial<Pick<PasteRow, 'expiresAt' | 'revealOnClick' | 'title' | 'encrypted'>> & {
    /** Missing or null: the column's default (`auto`). */
    language?: string | null;
    /** SHA-256 (hex) of the delete token. */
    deleteTokenHash: string;
  };

/** `content` is the envelope (JSON) when `encrypted`. */
export type ViewedPaste = Pick<
  PasteRow,
  | 'id'
  | 'slug'
  | 'content'
  | 'viewsCount'
  | 'maxViews'
  | 'createdAt'
  | 'expiresAt'
  | 'title'
  | 'language'
  | 'encrypted'
  | 'attachments'
> & { hasPassword: boolean };
const viewedPasteRow: z.ZodType<ViewedPaste> = z.object({
  id: z.number(),
  slug: z.string(),
  content: z.string(),
  viewsCount: z.number(),
  maxViews: z.number().nullable(),
  createdAt: z.date(),
  expiresAt: z.date().nullable(),
  title: z.string().nullable(),
  language: z.string(),
  encrypted: z.boolean(),
  attachments: z.number(),
  hasPassword: z.boolean(),
});

/** What the creator's page shows: the limits and the count so far, never the content. */
export type PasteSummary = Pick<
  PasteRow,
  'slug' | 'maxViews' | 'viewsCount' | 'createdAt' | 'expiresAt' | 'revealOnClick' | 'previewFetches' | 'encrypted'
> & { hasPassword: boolean };
const pasteSummaryRow: z.ZodType<PasteSummary> = z.object({
  slug: z.string(),
  maxViews: z.number().nullable(),
  viewsCount: z.number(),
  hasPassword: z.boolean(),
  createdAt: z.date(),
  expiresAt: z.date().nullable(),
  revealOnClick: z.boolean(),
  previewFetches: z.number(),
  encrypted: z.boolean(),
});

/** A paste's state without counting a view. */
const inspectedRow = z.object({
  expired: z.boolean(),
  revealOnClick: z.boolean(),
  hasPassword: z.boolean(),
  keyHash: z.string().nullable(),
});
const expiredRow = z.object({ expired: z.boolean() });
const deleteTokenRow = z.object({ id: z.number(), deleteTokenHash: z.string().nullable() });

/**
 * Why a view counted nothing: the paste is missing, used up (views or time), waits for its
 * password, opens only with its "Show paste" button (`reveal`), or counts only a request that
 * carries its key check (`key`).
 */
export type MissedView = 'not_found' | 'expired' | 'locked' | 'reveal' | 'key';

/** Past its view limit or its time limit (`p` is the pastes row). */
export const EXPIRED_SQL =
  '((p.max_views IS NOT NULL AND p.views_count >= p.max_views) OR (p.expires_at IS NOT NULL AND p.expires_at <= now()))';
/**
 * The `keyHash` of an encrypted paste (decisions.md wave 4), read from its stored envelope, or
 * NULL (plain pastes, envelopes made before the key check). The service writes every envelope as
 * `{"v":1,"keyHash":"…",…}` (pastes.service.ts, envelopeText), so the hash has a fixed place in
 * the first characters and `substr` reads only those of a long envelope, never the ciphertext.
 */
export const KEY_HASH_SQL = `(CASE WHEN p.encrypted THEN substring(substr(p.content, 1, 80) from '^\\{"v":1,"keyHash":"([A-Za-z0-9_-]{43})"') END)`;
/** No key check needed: the batched views count only such pastes. */
const KEYLESS_SQL = `${KEY_HASH_SQL} IS NULL`;

/** Neither: a view may still count. */
const LIVE_SQL =
  '(p.max_views IS NULL OR p.views_count < p.max_views) AND (p.expires_at IS NULL OR p.expires_at > now())';

const batchViewColumns = `p.id, p.slug, p.content, p.views_count AS "viewsCount", p.max_views AS "maxViews",
  p.created_at AS "createdAt", p.expires_at AS "expiresAt", p.password_hash IS NOT NULL AS "hasPassword", p.title, p.language, p.encrypted, p.attachments`;

/** The columns of batchViewColumns, read back from the `viewed` CTE that also counts the views in the statistics. */
const viewedColumns =
  'id, slug, content, "viewsCount", "maxViews", "createdAt", "expiresAt", "hasPassword", title, language, encrypted, attachments';

/** API usage is counted over this many rows, so concurrent API requests rarely wait on one row's lock. */
export const API_USAGE_SHARDS = 16;

/** The counter row one increment of API usage goes to. */
const apiUsageShard = () => `api_usage:${Math.floor(Math.random() * API_USAGE_SHARDS)}`;

// The counters the statistics read (stats.repository.ts) are kept by the statements that change
// what they count: inserts and deletes by the triggers of 0005_paste_stats.sql, API usage and
// views by the two statements below, run as CTEs of the insert and view statements here, so a
// batch and its count are one statement (one round trip on the creation and view paths).

/**
 * Adds the API pastes just inserted to a shard of the API usage counter. `inserted` names the
 * CTE of inserted rows (with `slug`); `slugs` and `counted` are the parameters of the batch's
 * slugs and whether each counts; `shard` the parameter of the row name.
 */
function countApiUsageSql(refs: { inserted: string; slugs: string; counted: string; shard: string }): string {
  return `INSERT INTO paste_counters (name, value)
             SELECT ${refs.shard}::text, count(*) FROM ${refs.inserted} JOIN unnest(${refs.slugs}::text[], ${refs.counted}::boolean[]) AS api(slug, counted) USING (slug)
              WHERE api.counted HAVING count(*) > 0
             ON CONFLICT (name) DO UPDATE SET value = paste_counters.value + EXCLUDED.value`;
}

/**
 * Adds the views just counted to the statistics (paste_stats). `viewed` names the CTE of updated
 * rows, with `created_at` and `added`, the views each added. The shard is drawn per statement;
 * rows go in day order, so two statements never wait on each other's counter rows in opposite
 * orders.
 */
function countViewsSql(refs: { viewed: string }): string {
  return `INSERT INTO paste_stats AS s (day, shard, views)
             SELECT (v.created_at AT TIME ZONE 'UTC')::date, floor(random() * 8)::smallint, sum(v.added)
               FROM ${refs.viewed} v GROUP BY 1 HAVING sum(v.added) <> 0 ORDER BY 1
             ON CONFLICT (day, shard) DO UPDATE SET views = s.views + EXCLUDED.views`;
}

/**
 * A CTE that lets this transaction's commit return before the disk flush
 * (`synchronous_commit = off` until the transaction ends), for view counts only: a crash may
 * forget their last fraction of a second. A statement that joins it is one implicit
 * transaction, so it can stay a named (prepared) statement, where `SET LOCAL` would need a
 * statement of its own.
 */
const noFlushWait = "no_flush_wait AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true) AS setting)";

interface ViewRequest {
  slug: string;
  unlocked: boolean;
}
interface InsertRequest {
  paste: NewPaste;
  countApiUsage: boolean;
}

type BatchedViewRow = ViewedPaste & { old: number };

export interface PasteBatchesOptions {
  /**
   * Groups concurrent views (and concurrent inserts) into one statement per batch (default
   * true). False runs one statement per call (the benchmark's reference row).
   */
  batching?: boolean;
  /** Batches of each kind in flight at once (default 2); `batchConcurrency(pool)` of @app/db. */
  batchesInFlight?: number;
}

/** Expired (views or time), reveal-on-click and password, without counting a view; undefined when missing. */
export async function inspectPaste(db: Queryable, slug: string) {
  const { rows } = await db.query(
    `SELECT ${EXPIRED_SQL} AS expired, p.reveal_on_click AS "revealOnClick", p.password_hash IS NOT NULL AS "hasPassword",
            ${KEY_HASH_SQL} AS "keyHash"
       FROM pastes p WHERE p.slug = $1`,
    [slug],
  );
  return parseRows(inspectedRow, rows)[0];
}

/**
 * The inserts and views of pastes, grouped: concurrent calls wait for the statement in flight
 * and go together in the next one (see `viewBatch`). The queues of waiting calls are the one
 * state the paste statements have, which is why this is made once, by the paste service, and
 * held for the app's life: every route's creates and views share its queues. Everything else
 * here is a plain function of the database.
 */
export function createPasteBatches(db: Queryable, options: PasteBatchesOptions = {}) {
  /**
   * Inserts a batch in one statement; each item gets its slug back, or `undefined` when the slug
   * is taken (also by an earlier item of the same batch: the caller draws another one). API
   * usage grows by the number of API pastes inserted, in the same statement.
   */
  const insertBatch = async (items: InsertRequest[]): Promise<Array<{ slug: string } | undefined>> => {
    const seen = new Set<string>();
    const sent: InsertRequest[] = [];
    for (const item of items) {
      if (seen.has(item.paste.slug)) continue;
      seen.add(item.paste.slug);
      sent.push(item);
    }
    const apiUsage = sent.some((item) => item.countApiUsage);
    const values: unknown[] = [
      sent.map((item) => item.paste.slug),
      sent.map((item) => item.paste.content),
      sent.map((item) => item.paste.passwordHash),
      sent.map((item) => item.paste.maxViews),
      sent.map((item) => item.paste.deleteTokenHash),
      sent.map((item) => item.paste.expiresAt?.toISOString() ?? null),
      sent.map((item) => item.paste.revealOnClick ?? false),
      sent.map((item) => item.paste.title ?? null),
      sent.map((item) => item.paste.language ?? 'auto'),
      sent.map((item) => item.paste.encrypted ?? false),
    ];
    let usage = '';
    if (apiUsage) {
      values.push(
        sent.map((item) => item.countApiUsage),
        apiUsageShard(),
      );
      usage = `, usage AS (${countApiUsageSql({ inserted: 'inserted', slugs: '$1', counted: '$11', shard: '$12' })})`;
    }
    // row-check: hot path, asserted for speed
    const { rows } = await db.query<{ slug: string }>({
      // Named: parsed and planned once per connection (see `viewBatch`).
      name: apiUsage ? 'paste-insert-batch-api' : 'paste-insert-batch',
      text: `WITH inserted AS (
         INSERT INTO pastes (slug, content, password_hash, max_views, delete_token_hash, expires_at, reveal_on_click, title, language, encrypted)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::text[],
                              $6::timestamptz[], $7::boolean[], $8::text[], $9::text[], $10::boolean[])
         ON CONFLICT (slug) DO NOTHING RETURNING slug)${usage}
       SELECT slug FROM inserted`,
      values,
    });
    const inserted = new Set(rows.map((row) => row.slug));
    const answered = new Set<string>();
    return items.map((item) => {
      const { slug } = item.paste;
      if (!inserted.has(slug) || answered.has(slug)) return undefined;
      answered.add(slug);
      return { slug };
    });
  };

  /** A batch of one (a quiet moment): the plain conditional increment, lighter than locking first. */
  const viewOne = async ({ slug, unlocked }: ViewRequest): Promise<ViewedPaste | undefined> => {
    // row-check: hot path, asserted for speed
    const { rows } = await db.query<ViewedPaste>({
      name: 'paste-view-one',
      text: `WITH ${noFlushWait},
         viewed AS (
           UPDATE pastes p SET views_count = views_count + 1, last_viewed_at = now()
             FROM no_flush_wait
            WHERE slug = $1 AND ${LIVE_SQL} AND NOT p.reveal_on_click AND (password_hash IS NULL OR $2::boolean)
              AND ${KEYLESS_SQL}
            RETURNING ${batchViewColumns}, p.created_at, 1 AS added),
         counted AS (${countViewsSql({ viewed: 'viewed' })})
         SELECT ${viewedColumns} FROM viewed`,
      values: [slug, unlocked],
    });
    return rows[0];
  };

  /**
   * Counts a batch of views in one statement. Per slug, the views that may count (all of them
   * without a password, the unlocked ones with one) are added at once, capped at maxViews; the
   * row is locked first (FOR UPDATE, in id order) so the count added is exact even against
   * another instance's concurrent batch. The first (new - old) eligible requests of a slug, in
   * arrival order, are shown, with the counts old+1, old+2, ...; the others get `undefined`
   * (the caller then asks why: expired, locked, key or not found). A paste with a key check is
   * never counted here: only `viewWithKey`, after the service checked the key, counts its views.
   *
   * The commit does not wait for the disk flush (`no_flush_wait`): a crash may forget the last
   * fraction of a second of view counts.
   *
   * The statement is named, so each connection parses and plans it once: on the embedded
   * database, parsing and planning this statement cost twice as much as running it.
   */
  const viewBatch = async (items: ViewRequest[]): Promise<Array<ViewedPaste | undefined>> => {
    if (items.length === 1) return [await viewOne(items[0]!)];
    const perSlug = new Map<string, { all: number; unlocked: number }>();
    for (const { slug, unlocked } of items) {
      const counts = perSlug.get(slug) ?? { all: 0, unlocked: 0 };
      counts.all += 1;
      if (unlocked) counts.unlocked += 1;
      perSlug.set(slug, counts);
    }
    const counted = [...perSlug];
    // row-check: hot path, asserted for speed
    const { rows } = await db.query<BatchedViewRow>({
      name: 'paste-view-batch',
      text: `WITH ${noFlushWait},
       b AS (SELECT u.* FROM unnest($1::text[], $2::integer[], $3::integer[]) AS u(slug, n_all, n_unlocked), no_flush_wait),
       l AS (
         SELECT p.id, p.views_count AS old, CASE WHEN p.password_hash IS NULL THEN b.n_all ELSE b.n_unlocked END AS n
           FROM pastes p JOIN b ON p.slug = b.slug
          WHERE ${LIVE_SQL} AND NOT p.reveal_on_click AND (p.password_hash IS NULL OR b.n_unlocked > 0) AND ${KEYLESS_SQL}
          ORDER BY p.id FOR UPDATE OF p),
       viewed AS (
         UPDATE pastes p SET views_count = CASE WHEN p.max_views IS NULL THEN l.old + l.n ELSE LEAST(p.max_views, l.old + l.n) END,
                last_viewed_at = now()
           FROM l WHERE p.id = l.id
         RETURNING l.old, ${batchViewColumns}, p.created_at, p.views_count - l.old AS added),
       counted AS (${countViewsSql({ viewed: 'viewed' })})
       SELECT old, ${viewedColumns} FROM viewed`,
      values: [
        counted.map(([slug]) => slug),
        counted.map(([, counts]) => counts.all),
        counted.map(([, counts]) => counts.unlocked),
      ],
    });
    const bySlug = new Map<string, { row: BatchedViewRow; shown: number }>();
    for (const row of rows) bySlug.set(row.slug, { row, shown: 0 });
    return items.map(({ slug, unlocked }) => {
      const found = bySlug.get(slug);
      if (!found || (found.row.hasPassword && !unlocked)) return undefined;
      const { row } = found;
      const count = row.old + found.shown + 1;
      if (count > row.viewsCount) return undefined;
      found.shown += 1;
      const { old: _old, ...paste } = row;
      return { ...paste, viewsCount: count };
    });
  };

  const batching = options.batching ?? true;
  const concurrency = options.batchesInFlight ?? 2;
  const insertBatched = createBatcher({ run: insertBatch, concurrency, maxBatch: 64 });
  const viewBatched = createBatcher({ run: viewBatch, concurrency, maxBatch: 500 });

  return {
    /**
     * Inserts unless the slug is taken (then `undefined`, and the caller draws another slug).
     * `countApiUsage` adds one to the API usage counter in the same statement. Concurrent
     * inserts go together in one statement.
     */
    async insert(paste: NewPaste, countApiUsage: boolean): Promise<{ slug: string } | undefined> {
      const request = { paste, countApiUsage };
      return batching ? insertBatched(request) : (await insertBatch([request]))[0];
    },

    /**
     * One view: the check (not used up, not locked) and the increment are one statement, so
     * concurrent views can never show a paste more often than maxViews allows. Concurrent
     * views go together in one statement (see `viewBatch`).
     */
    async view(slug: string, unlocked: boolean): Promise<ViewedPaste | undefined> {
      const request = { slug, unlocked };
      return batching ? viewBatched(request) : (await viewBatch([request]))[0];
    },
  };
}

/** One view counted in one statement (its row lock keeps it exact beside the batches). */
async function countOne(
  db: Queryable,
  slug: string,
  unlocked: boolean,
  keyHash: string | null,
  revealed: boolean,
): Promise<ViewedPaste | undefined> {
  const { rows } = await db.query(
    `WITH viewed AS (
         UPDATE pastes p SET views_count = views_count + 1, last_viewed_at = now()
          WHERE slug = $1 AND ${LIVE_SQL} AND (password_hash IS NULL OR $2::boolean)
            AND ($4::boolean OR NOT p.reveal_on_click) AND ${KEY_HASH_SQL} IS NOT DISTINCT FROM $3::text
          RETURNING ${batchViewColumns}, p.created_at, 1 AS added),
       counted AS (${countViewsSql({ viewed: 'viewed' })})
       SELECT ${viewedColumns} FROM viewed`,
    [slug, unlocked, keyHash, revealed],
  );
  return parseRows(viewedPasteRow, rows)[0];
}

/**
 * After a view counted nothing: tells why. Expired wins over reveal, reveal over locked (a
 * password the session has not given), locked over key (a paste only a request with its key
 * check counts).
 */
export async function whyNotViewed(db: Queryable, slug: string, unlocked: boolean): Promise<MissedView> {
  const found = await inspectPaste(db, slug);
  if (!found) return 'not_found';
  if (found.expired) return 'expired';
  if (found.revealOnClick) return 'reveal';
  if (found.hasPassword && !unlocked) return 'locked';
  return found.keyHash === null ? 'locked' : 'key';
}

/**
 * The view of a paste opened with its "Show paste" button (POST /paste/:slug/reveal): the
 * same conditional increment as any view, as one statement, for reveal pastes too. Not
 * batched: a button press is rare, and the row lock keeps it exact beside the batches.
 * `keyHash` is the one the service checked the reader's key against (null without a check):
 * a paste whose own differs is not counted.
 */
export async function revealPaste(
  db: Queryable,
  slug: string,
  unlocked: boolean,
  keyHash: string | null,
): Promise<ViewedPaste | undefined> {
  return countOne(db, slug, unlocked, keyHash, true);
}

/**
 * A view by a reader whose key check the service found right (`keyHash`, null for a paste
 * without one): as `view`, for one request, counting a paste with a key check too.
 */
export async function viewPasteWithKey(
  db: Queryable,
  slug: string,
  unlocked: boolean,
  keyHash: string | null,
): Promise<ViewedPaste | undefined> {
  return countOne(db, slug, unlocked, keyHash, false);
}

/**
 * A fetch that never counts a view (a link-preview agent, a HEAD request): counted in
 * preview_fetches while the paste is live; answers its state.
 */
export async function previewFetch(db: Queryable, slug: string): Promise<'not_found' | 'expired' | 'viewable'> {
  const { rows } = await db.query(
    `UPDATE pastes p SET preview_fetches = preview_fetches + CASE WHEN ${EXPIRED_SQL} THEN 0 ELSE 1 END
        WHERE slug = $1 RETURNING ${EXPIRED_SQL} AS expired`,
    [slug],
  );
  const found = parseRows(expiredRow, rows)[0];
  if (!found) return 'not_found';
  return found.expired ? 'expired' : 'viewable';
}

/** The limits and count of a paste, without counting a view. */
export async function pasteSummary(db: Queryable, slug: string): Promise<PasteSummary | undefined> {
  const { rows } = await db.query(
    `SELECT slug, max_views AS "maxViews", views_count AS "viewsCount", password_hash IS NOT NULL AS "hasPassword",
              created_at AS "createdAt", expires_at AS "expiresAt", reveal_on_click AS "revealOnClick",
              preview_fetches AS "previewFetches", encrypted FROM pastes WHERE slug = $1`,
    [slug],
  );
  return parseRows(pasteSummaryRow, rows)[0];
}

export async function findDeleteTokenHash(
  db: Queryable,
  slug: string,
): Promise<{ id: number; deleteTokenHash: string | null } | undefined> {
  const { rows } = await db.query('SELECT id, delete_token_hash AS "deleteTokenHash" FROM pastes WHERE slug = $1', [
    slug,
  ]);
  return parseRows(deleteTokenRow, rows)[0];
}

/** By id, not slug: a paste made later under the same slug is never the one deleted. */
export async function deletePasteById(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM pastes WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

export async function deleteAllPastes(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM pastes');
  return rowCount ?? 0;
}

/** Deletes pastes past their time limit. */
export async function deleteExpiredPastes(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM pastes WHERE expires_at <= now()');
  return rowCount ?? 0;
}

/** Deletes pastes whose last view (their creation when never viewed) is older than `days`. */
export async function deleteInactivePastes(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM pastes WHERE coalesce(last_viewed_at, created_at) < now() - make_interval(days => $1)`,
    [days],
  );
  return rowCount ?? 0;
}

/**
 * A paste with attachments waits under this prefix of its slug until its files are uploaded
 * (POST /api/paste/:slug/complete): no read can name it (slugs are letters and digits), so it
 * answers 404 until then.
 */
export const PENDING_PREFIX = 'pending:';
const pendingRow = z.object({ id: z.number(), deleteTokenHash: z.string().nullable() });
const insertedRow = z.object({ id: z.number(), slug: z.string() });

/** Inserts a paste that waits for its files (under `pending:<slug>`); undefined when the slug is taken. */
export async function insertPendingPaste(
  db: Queryable,
  paste: NewPaste,
): Promise<{ id: number; slug: string } | undefined> {
  const { rows } = await db.query(
    `INSERT INTO pastes (slug, content, password_hash, max_views, delete_token_hash, expires_at, reveal_on_click, title, language, encrypted)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
        WHERE NOT EXISTS (SELECT 1 FROM pastes WHERE slug = $11)
       ON CONFLICT (slug) DO NOTHING RETURNING id, slug`,
    [
      PENDING_PREFIX + paste.slug,
      paste.content,
      paste.passwordHash,
      paste.maxViews,
      paste.deleteTokenHash,
      paste.expiresAt ?? null,
      paste.revealOnClick ?? false,
      paste.title ?? null,
      paste.language ?? 'auto',
      paste.encrypted ?? false,
      paste.slug,
    ],
  );
  const found = parseRows(insertedRow, rows)[0];
  return found && { id: found.id, slug: found.slug.slice(PENDING_PREFIX.length) };
}

/** The paste waiting for its files under `slug`. */
export async function findPendingPaste(
  db: Queryable,
  slug: string,
): Promise<{ id: number; deleteTokenHash: string | null } | undefined> {
  const { rows } = await db.query('SELECT id, delete_token_hash AS "deleteTokenHash" FROM pastes WHERE slug = $1', [
    PENDING_PREFIX + slug,
  ]);
  return parseRows(pendingRow, rows)[0];
}

/**
 * Makes a pending paste readable under its slug, with its count of attachments; false when the
 * slug was taken meanwhile (then the paste stays pending) or it is no longer pending.
 */
export async function publishPendingPaste(
  db: Queryable,
  id: number,
  slug: string,
  attachments: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE pastes SET slug = $2, attachments = $3
      WHERE id = $1 AND slug = $4 AND NOT EXISTS (SELECT 1 FROM pastes WHERE slug = $2)`,
    [id, slug, attachments, PENDING_PREFIX + slug],
  );
  return (rowCount ?? 0) > 0;
}

/** Deletes pastes whose files never arrived (pending for longer than `hours`). */
export async function deleteAbandonedPastes(db: Queryable, hours: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM pastes WHERE slug LIKE 'pending:%' AND created_at < now() - make_interval(hours => $1)`,
    [hours],
  );
  return rowCount ?? 0;
}

export type PasteBatches = ReturnType<typeof createPasteBatches>;
