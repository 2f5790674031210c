-- Insight rollups folded outside the validation's transaction (issue 57; docs/insight.md).
--
-- Until now a statement trigger (usage_daily_inserted, migration 0022) upserted the rollups in
-- the transaction of each validation batch: a batch of 16 licenses cost 1.45 times as much as
-- without it (the per-license and per-product upserts, each an index probe and a new row
-- version, and the sightings' probes). Now the trigger only appends the batch's records to
-- usage_rollup_queue (one heap insert of the transition table, no index), and
-- usage_rollup_fold_v1 moves queued rows into the rollups later, from a job and before the
-- analytics are read.
--
-- Exactness: the fold takes its rows with DELETE ... RETURNING, so a row is folded by exactly
-- one committed fold (a row is seen only once its validation committed; an aborted validation
-- queued nothing; a fold that aborts gives its rows back). Folds are serialized by a transaction
-- advisory lock (usable behind a transaction pooler), so the distinct sightings and the counters
-- they raise are decided by one writer at a time, and the counters need no shards: a fold writes
-- shard 0 (readers still sum the shards the trigger wrote).
--
-- Rolling upgrade: the previous release's instances keep calling license_validate_batch_v3, whose
-- insert now queues through the new trigger; they read the rollups that this release's instances
-- fold (within a second). usage_daily_inserted stays defined (no trigger calls it) so a rollback
-- can put its trigger back.
CREATE TABLE "usage_rollup_queue" (
	"license_id" uuid,
	"ip" text,
	"hwid" text,
	"reason" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_rollup_queue" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
--> statement-breakpoint
-- The dashboard's top licenses, kept as the fold goes: each license's validations of the 30 UTC
-- days ending usage_license_window_state.last_day (both included). The fold adds what it takes
-- of those days; when the day moves on, it subtracts the days that left the window and adds the
-- ones that entered it, from usage_daily (kept forever), in the same serialized transaction.
-- A license with nothing in the window has no row.
CREATE TABLE "usage_license_window" (
	"license_id" uuid NOT NULL,
	"product_id" uuid,
	"ok" bigint DEFAULT 0 NOT NULL,
	"refused" bigint DEFAULT 0 NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_license_window_pk" PRIMARY KEY ("license_id")
);
--> statement-breakpoint
CREATE INDEX "usage_license_window_total_idx" ON "usage_license_window" ("total" DESC, "license_id");
--> statement-breakpoint
CREATE INDEX "usage_license_window_product_idx" ON "usage_license_window" ("product_id", "total" DESC, "license_id");
--> statement-breakpoint
CREATE TABLE "usage_license_window_state" (
	"id" boolean DEFAULT true NOT NULL,
	"last_day" date,
	CONSTRAINT "usage_license_window_state_pk" PRIMARY KEY ("id"),
	CONSTRAINT "usage_license_window_state_one_row" CHECK ("id")
);
--> statement-breakpoint
INSERT INTO "usage_license_window_state" ("id", "last_day") VALUES (true, NULL);
--> statement-breakpoint
CREATE FUNCTION usage_rollup_enqueued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_rollup_queue (license_id, ip, hwid, reason, created_at)
  SELECT u.license_id, u.ip, u.hwid, u.reason, u.created_at FROM usage_rollup_new u;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Moves the window of usage_license_window to the 30 days ending `p_today`: the days that left it
-- are subtracted and the ones that entered added, from usage_daily; a jump of 30 days or more (or
-- back in time) rebuilds it. Called by usage_rollup_fold_v1 under its lock.
CREATE FUNCTION usage_license_window_advance_v1(p_today date) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  last date;
BEGIN
  SELECT s.last_day INTO last FROM usage_license_window_state s WHERE s.id FOR UPDATE;
  IF last = p_today THEN
    RETURN;
  END IF;
  IF last IS NULL OR last > p_today OR p_today - last >= 30 THEN
    DELETE FROM usage_license_window;
    INSERT INTO usage_license_window AS w (license_id, product_id, ok, refused, total)
    SELECT d.license_id, (array_agg(d.product_id ORDER BY d.day DESC))[1],
           coalesce(sum(d.records) FILTER (WHERE d.outcome = ''), 0), coalesce(sum(d.records) FILTER (WHERE d.outcome <> ''), 0),
           sum(d.records)
      FROM usage_daily d WHERE d.license_id IS NOT NULL AND d.day BETWEEN p_today - 29 AND p_today
     GROUP BY d.license_id;
  ELSE
    -- Days last-29 .. p_today-30 leave (subtracted), days last+1 .. p_today enter (added).
    INSERT INTO usage_license_window AS w (license_id, product_id, ok, refused, total)
    SELECT d.license_id, (array_agg(d.product_id ORDER BY d.day DESC))[1],
           coalesce(sum(d.records * s.sign) FILTER (WHERE d.outcome = ''), 0),
           coalesce(sum(d.records * s.sign) FILTER (WHERE d.outcome <> ''), 0), sum(d.records * s.sign)
      FROM usage_daily d
     CROSS JOIN LATERAL (SELECT CASE WHEN d.day > last THEN 1 ELSE -1 END AS sign) s
     WHERE d.license_id IS NOT NULL
       AND (d.day BETWEEN last - 29 AND p_today - 30 OR d.day BETWEEN last + 1 AND p_today)
     GROUP BY d.license_id ORDER BY d.license_id
    ON CONFLICT (license_id) DO UPDATE SET
      ok = w.ok + EXCLUDED.ok, refused = w.refused + EXCLUDED.refused, total = w.total + EXCLUDED.total,
      product_id = coalesce(EXCLUDED.product_id, w.product_id);
    DELETE FROM usage_license_window WHERE total = 0;
  END IF;
  UPDATE usage_license_window_state SET last_day = p_today WHERE id;
END $$;
--> statement-breakpoint
-- Folds up to `p_limit` queued records into the rollups and answers how many it folded (0 when
-- `p_wait` is false and another fold holds the lock: that one folds them). `p_today` is the
-- caller's UTC day, the end of the top licenses' window. The caller runs it as its own
-- transaction (one statement); it repeats while a whole `p_limit` was folded.
CREATE FUNCTION usage_rollup_fold_v1(p_today date, p_limit integer, p_wait boolean) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  folded integer;
BEGIN
  IF p_wait THEN
    PERFORM pg_advisory_xact_lock(hashtext('license usage rollup fold'));
  ELSIF NOT pg_try_advisory_xact_lock(hashtext('license usage rollup fold')) THEN
    RETURN 0;
  END IF;
  PERFORM usage_license_window_advance_v1(p_today);
  WITH taken AS (
    DELETE FROM usage_rollup_queue q
     WHERE q.ctid = ANY (ARRAY(SELECT t.ctid FROM usage_rollup_queue t LIMIT p_limit))
    RETURNING (q.created_at AT TIME ZONE 'UTC')::date AS day, q.license_id, q.ip, q.hwid, coalesce(q.reason, '') AS outcome
  ), counts AS (
    SELECT t.day, t.license_id, l.product_id, t.outcome, count(*) AS n
      FROM taken t LEFT JOIN licenses l ON l.id = t.license_id
     GROUP BY 1, 2, 3, 4
  ), per_license AS (
    INSERT INTO usage_daily AS d (day, license_id, product_id, outcome, shard, records)
    SELECT c.day, c.license_id, c.product_id, c.outcome, 0, c.n FROM counts c ORDER BY c.day, c.license_id, c.outcome
    ON CONFLICT (day, license_id, outcome, shard) DO UPDATE SET records = d.records + EXCLUDED.records
  ), per_product AS (
    INSERT INTO usage_daily_products AS d (day, product_id, outcome, shard, records)
    SELECT c.day, c.product_id, c.outcome, 0, sum(c.n) FROM counts c GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (day, product_id, outcome, shard) DO UPDATE SET records = d.records + EXCLUDED.records
  ), in_window AS (
    -- Only the days of the window as it stands (advanced above); later days enter when it moves.
    INSERT INTO usage_license_window AS w (license_id, product_id, ok, refused, total)
    SELECT c.license_id, (array_agg(c.product_id))[1], coalesce(sum(c.n) FILTER (WHERE c.outcome = ''), 0),
           coalesce(sum(c.n) FILTER (WHERE c.outcome <> ''), 0), sum(c.n)
      FROM counts c WHERE c.license_id IS NOT NULL AND c.day BETWEEN p_today - 29 AND p_today
     GROUP BY c.license_id ORDER BY c.license_id
    ON CONFLICT (license_id) DO UPDATE SET
      ok = w.ok + EXCLUDED.ok, refused = w.refused + EXCLUDED.refused, total = w.total + EXCLUDED.total
  ), fresh AS (
    -- New sightings only: a known address or hardware id of the day writes nothing.
    INSERT INTO usage_daily_sightings (day, license_id, kind, value)
    SELECT DISTINCT t.day, t.license_id, s.kind, s.value
      FROM taken t CROSS JOIN LATERAL (VALUES ('ip', t.ip), ('hwid', t.hwid)) AS s(kind, value)
     WHERE t.license_id IS NOT NULL AND s.value IS NOT NULL
     ORDER BY 1, 2, 3, 4
    ON CONFLICT DO NOTHING
    RETURNING day, license_id, kind
  ), counted AS (
    INSERT INTO usage_daily_devices AS d (day, license_id, product_id, machines, addresses)
    SELECT f.day, f.license_id, l.product_id, count(*) FILTER (WHERE f.kind = 'hwid'), count(*) FILTER (WHERE f.kind = 'ip')
      FROM fresh f LEFT JOIN licenses l ON l.id = f.license_id
     GROUP BY 1, 2, 3 ORDER BY 1, 2
    ON CONFLICT (day, license_id) DO UPDATE SET
      machines = d.machines + EXCLUDED.machines, addresses = d.addresses + EXCLUDED.addresses
    RETURNING d.day, d.license_id, d.addresses
  ), per_product_devices AS (
    INSERT INTO usage_daily_product_devices AS d (day, product_id, machines, addresses)
    SELECT f.day, l.product_id, count(*) FILTER (WHERE f.kind = 'hwid'), count(*) FILTER (WHERE f.kind = 'ip')
      FROM fresh f JOIN licenses l ON l.id = f.license_id
     GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (day, product_id) DO UPDATE SET
      machines = d.machines + EXCLUDED.machines, addresses = d.addresses + EXCLUDED.addresses
  ), flagged AS (
    INSERT INTO license_sharing_flags (license_id, day, addresses, address_limit)
    SELECT c.license_id, c.day, c.addresses, x.address_limit
      FROM counted c JOIN licenses l ON l.id = c.license_id LEFT JOIN policies p ON p.id = l.policy_id
     CROSS JOIN LATERAL (SELECT coalesce(l.sharing_address_limit, p.sharing_address_limit) AS address_limit) x
     WHERE x.address_limit IS NOT NULL AND c.addresses > x.address_limit
    ON CONFLICT (license_id, day) DO NOTHING
  )
  SELECT count(*) INTO folded FROM taken;
  RETURN folded;
END $$;
--> statement-breakpoint
-- Back-fill: folds the usage records of [p_from, p_to) that were loaded with the queue's trigger
-- disabled (a bulk load or a restore; nothing of them is queued) exactly as the fold would, in one
-- set-based pass, a month at a time by the caller; answers how many records. The top licenses'
-- window is rebuilt at the next fold.
CREATE FUNCTION usage_rollups_backfill_v1(p_from timestamptz, p_to timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  backfilled bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('license usage rollup fold'));
  WITH taken AS (
    SELECT (q.created_at AT TIME ZONE 'UTC')::date AS day, q.license_id, q.ip, q.hwid, coalesce(q.reason, '') AS outcome
      FROM usage_records q WHERE q.created_at >= p_from AND q.created_at < p_to
  ), counts AS (
    SELECT t.day, t.license_id, l.product_id, t.outcome, count(*) AS n
      FROM taken t LEFT JOIN licenses l ON l.id = t.license_id
     GROUP BY 1, 2, 3, 4
  ), per_license AS (
    INSERT INTO usage_daily AS d (day, license_id, product_id, outcome, shard, records)
    SELECT c.day, c.license_id, c.product_id, c.outcome, 0, c.n FROM counts c ORDER BY c.day, c.license_id, c.outcome
    ON CONFLICT (day, license_id, outcome, shard) DO UPDATE SET records = d.records + EXCLUDED.records
  ), per_product AS (
    INSERT INTO usage_daily_products AS d (day, product_id, outcome, shard, records)
    SELECT c.day, c.product_id, c.outcome, 0, sum(c.n) FROM counts c GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (day, product_id, outcome, shard) DO UPDATE SET records = d.records + EXCLUDED.records
  ), fresh AS (
    -- New sightings only: a known address or hardware id of the day writes nothing.
    INSERT INTO usage_daily_sightings (day, license_id, kind, value)
    SELECT DISTINCT t.day, t.license_id, s.kind, s.value
      FROM taken t CROSS JOIN LATERAL (VALUES ('ip', t.ip), ('hwid', t.hwid)) AS s(kind, value)
     WHERE t.license_id IS NOT NULL AND s.value IS NOT NULL
     ORDER BY 1, 2, 3, 4
    ON CONFLICT DO NOTHING
    RETURNING day, license_id, kind
  ), counted AS (
    INSERT INTO usage_daily_devices AS d (day, license_id, product_id, machines, addresses)
    SELECT f.day, f.license_id, l.product_id, count(*) FILTER (WHERE f.kind = 'hwid'), count(*) FILTER (WHERE f.kind = 'ip')
      FROM fresh f LEFT JOIN licenses l ON l.id = f.license_id
     GROUP BY 1, 2, 3 ORDER BY 1, 2
    ON CONFLICT (day, license_id) DO UPDATE SET
      machines = d.machines + EXCLUDED.machines, addresses = d.addresses + EXCLUDED.addresses
    RETURNING d.day, d.license_id, d.addresses
  ), per_product_devices AS (
    INSERT INTO usage_daily_product_devices AS d (day, product_id, machines, addresses)
    SELECT f.day, l.product_id, count(*) FILTER (WHERE f.kind = 'hwid'), count(*) FILTER (WHERE f.kind = 'ip')
      FROM fresh f JOIN licenses l ON l.id = f.license_id
     GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (day, product_id) DO UPDATE SET
      machines = d.machines + EXCLUDED.machines, addresses = d.addresses + EXCLUDED.addresses
  ), flagged AS (
    INSERT INTO license_sharing_flags (license_id, day, addresses, address_limit)
    SELECT c.license_id, c.day, c.addresses, x.address_limit
      FROM counted c JOIN licenses l ON l.id = c.license_id LEFT JOIN policies p ON p.id = l.policy_id
     CROSS JOIN LATERAL (SELECT coalesce(l.sharing_address_limit, p.sharing_address_limit) AS address_limit) x
     WHERE x.address_limit IS NOT NULL AND c.addresses > x.address_limit
    ON CONFLICT (license_id, day) DO NOTHING
  )
  SELECT count(*) INTO backfilled FROM taken;
  UPDATE usage_license_window_state SET last_day = NULL WHERE id;
  RETURN backfilled;
END $$;
--> statement-breakpoint
DROP TRIGGER "usage_daily_inserted" ON "usage_records";
--> statement-breakpoint
CREATE TRIGGER "usage_rollup_enqueued" AFTER INSERT ON "usage_records" REFERENCING NEW TABLE AS usage_rollup_new
  FOR EACH STATEMENT EXECUTE FUNCTION usage_rollup_enqueued();
--> statement-breakpoint
-- The top licenses' window from the rollups as they stand (the queue is empty here: the trigger
-- that fills it was created in this transaction).
SELECT usage_license_window_advance_v1((now() AT TIME ZONE 'UTC')::date);
