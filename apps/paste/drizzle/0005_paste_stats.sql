-- The statistics kept as they change, instead of a scan of every paste (and of every content's
-- length) per GET /api/stats. One row per (UTC creation day, shard) holds the pastes created
-- that day and their views, characters and bytes; a write adds to one of 8 shards, chosen at
-- random, so concurrent writes rarely wait on one row's lock; readers sum the rows.
--
-- Kept exact in the same transaction as every write, whoever makes it:
-- * inserted and deleted pastes (create, delete by token or by the owner, clear-all, the expiry
--   and inactivity jobs, and any SQL): statement-level triggers over the transition tables, so a
--   batch or a clear-all is one counter update;
-- * a changed created_at or content (never done by the app): a row trigger that moves the paste;
-- * views: the app's view statements (paste.repository.ts) add their views to a shard in the
--   same statement, so the view path pays one counter row per batch and no trigger.
-- Pastes past their time limit but not yet deleted by the job are subtracted on read (an index
-- range over expires_at <= now(), a minute's worth at most).
CREATE TABLE "paste_stats" (
	"day" date NOT NULL,
	"shard" smallint NOT NULL,
	"pastes" bigint DEFAULT 0 NOT NULL,
	"views" bigint DEFAULT 0 NOT NULL,
	"chars" bigint DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "paste_stats_day_shard_pk" PRIMARY KEY("day","shard")
);
--> statement-breakpoint
-- Every view batch rewrites a counter row: vacuum this small table after every thousand dead rows
-- rather than after a fifth of it, so readers never scan a bloated table.
ALTER TABLE "paste_stats" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
--> statement-breakpoint
-- mostViewed: the top of this index, skipping the few pastes past their time limit.
CREATE INDEX "pastes_views_count_idx" ON "pastes" USING btree ("views_count");
--> statement-breakpoint
CREATE FUNCTION paste_stats_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO paste_stats AS s (day, shard, pastes, views, chars, bytes)
  SELECT (n.created_at AT TIME ZONE 'UTC')::date, floor(random() * 8)::smallint, count(*), sum(n.views_count),
         sum(char_length(n.content)), sum(octet_length(n.content))
    FROM paste_stats_new n GROUP BY 1 ORDER BY 1
  ON CONFLICT (day, shard) DO UPDATE SET pastes = s.pastes + EXCLUDED.pastes, views = s.views + EXCLUDED.views,
    chars = s.chars + EXCLUDED.chars, bytes = s.bytes + EXCLUDED.bytes;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION paste_stats_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO paste_stats AS s (day, shard, pastes, views, chars, bytes)
  SELECT (o.created_at AT TIME ZONE 'UTC')::date, floor(random() * 8)::smallint, -count(*), -sum(o.views_count),
         -sum(char_length(o.content)), -sum(octet_length(o.content))
    FROM paste_stats_old o GROUP BY 1 ORDER BY 1
  ON CONFLICT (day, shard) DO UPDATE SET pastes = s.pastes + EXCLUDED.pastes, views = s.views + EXCLUDED.views,
    chars = s.chars + EXCLUDED.chars, bytes = s.bytes + EXCLUDED.bytes;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION paste_stats_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO paste_stats AS s (day, shard, pastes, views, chars, bytes)
  SELECT d.day, floor(random() * 8)::smallint, sum(d.pastes), sum(d.views), sum(d.chars), sum(d.bytes)
    FROM (VALUES ((OLD.created_at AT TIME ZONE 'UTC')::date, -1, -OLD.views_count, -char_length(OLD.content), -octet_length(OLD.content)),
                 ((NEW.created_at AT TIME ZONE 'UTC')::date, 1, NEW.views_count, char_length(NEW.content), octet_length(NEW.content)))
         AS d(day, pastes, views, chars, bytes)
   GROUP BY d.day ORDER BY d.day
  ON CONFLICT (day, shard) DO UPDATE SET pastes = s.pastes + EXCLUDED.pastes, views = s.views + EXCLUDED.views,
    chars = s.chars + EXCLUDED.chars, bytes = s.bytes + EXCLUDED.bytes;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "paste_stats_inserted" AFTER INSERT ON "pastes" REFERENCING NEW TABLE AS paste_stats_new
  FOR EACH STATEMENT EXECUTE FUNCTION paste_stats_inserted();
--> statement-breakpoint
CREATE TRIGGER "paste_stats_deleted" AFTER DELETE ON "pastes" REFERENCING OLD TABLE AS paste_stats_old
  FOR EACH STATEMENT EXECUTE FUNCTION paste_stats_deleted();
--> statement-breakpoint
CREATE TRIGGER "paste_stats_moved" AFTER UPDATE OF "created_at", "content" ON "pastes" FOR EACH ROW
  WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.content IS DISTINCT FROM NEW.content)
  EXECUTE FUNCTION paste_stats_moved();
--> statement-breakpoint
-- Backfill, after the triggers exist: their lock on "pastes" holds concurrent writers until this
-- migration commits, so every paste is counted exactly once.
INSERT INTO "paste_stats" (day, shard, pastes, views, chars, bytes)
SELECT (created_at AT TIME ZONE 'UTC')::date, 0, count(*), sum(views_count), sum(char_length(content)), sum(octet_length(content))
  FROM "pastes" GROUP BY 1;
