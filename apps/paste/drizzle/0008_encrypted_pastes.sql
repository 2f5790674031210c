-- End-to-end encrypted pastes: "content" then holds the envelope the browser or the command line
-- made ({"v":1,"iv":…,"salt":…,"ciphertext":…}), never readable text; the key stays in the link's
-- fragment. The statistics count them (paste_stats.encrypted), kept by the same triggers.
ALTER TABLE "pastes" ADD COLUMN "encrypted" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "paste_stats" ADD COLUMN "encrypted" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION paste_stats_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO paste_stats AS s (day, shard, pastes, views, chars, bytes, encrypted)
  SELECT (n.created_at AT TIME ZONE 'UTC')::date, floor(random() * 8)::smallint, count(*), sum(n.views_count),
         sum(char_length(n.content)), sum(octet_length(n.content)), count(*) FILTER (WHERE n.encrypted)
    FROM paste_stats_new n GROUP BY 1 ORDER BY 1
  ON CONFLICT (day, shard) DO UPDATE SET pastes = s.pastes + EXCLUDED.pastes, views = s.views + EXCLUDED.views,
    chars = s.chars + EXCLUDED.chars, bytes = s.bytes + EXCLUDED.bytes, encrypted = s.encrypted + EXCLUDED.encrypted;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION paste_stats_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO paste_stats AS s (day, shard, pastes, views, chars, bytes, encrypted)
  SELECT (o.created_at AT TIME ZONE 'UTC')::date, floor(random() * 8)::smallint, -count(*), -sum(o.views_count),
         -sum(char_length(o.content)), -sum(octet_length(o.content)), -count(*) FILTER (WHERE o.encrypted)
    FROM paste_stats_old o GROUP BY 1 ORDER BY 1
  ON CONFLICT (day, shard) DO UPDATE SET pastes = s.pastes + EXCLUDED.pastes, views = s.views + EXCLUDED.views,
    chars = s.chars + EXCLUDED.chars, bytes = s.bytes + EXCLUDED.bytes, encrypted = s.encrypted + EXCLUDED.encrypted;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION paste_stats_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO paste_stats AS s (day, shard, pastes, views, chars, bytes, encrypted)
  SELECT d.day, floor(random() * 8)::smallint, sum(d.pastes), sum(d.views), sum(d.chars), sum(d.bytes), sum(d.encrypted)
    FROM (VALUES ((OLD.created_at AT TIME ZONE 'UTC')::date, -1, -OLD.views_count, -char_length(OLD.content), -octet_length(OLD.content),
                  -(OLD.encrypted::int)),
                 ((NEW.created_at AT TIME ZONE 'UTC')::date, 1, NEW.views_count, char_length(NEW.content), octet_length(NEW.content),
                  NEW.encrypted::int))
         AS d(day, pastes, views, chars, bytes, encrypted)
   GROUP BY d.day ORDER BY d.day
  ON CONFLICT (day, shard) DO UPDATE SET pastes = s.pastes + EXCLUDED.pastes, views = s.views + EXCLUDED.views,
    chars = s.chars + EXCLUDED.chars, bytes = s.bytes + EXCLUDED.bytes, encrypted = s.encrypted + EXCLUDED.encrypted;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER "paste_stats_moved" ON "pastes";
--> statement-breakpoint
CREATE TRIGGER "paste_stats_moved" AFTER UPDATE OF "created_at", "content", "encrypted" ON "pastes" FOR EACH ROW
  WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.content IS DISTINCT FROM NEW.content OR OLD.encrypted IS DISTINCT FROM NEW.encrypted)
  EXECUTE FUNCTION paste_stats_moved();
