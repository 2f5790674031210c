-- License and validation counts kept as they change, instead of counting a million licenses and
-- millions of usage records on every dashboard, product list and summary.
--
-- license_counts: one row per (product, type, UTC expiry day; 'infinity' without an expiry),
-- holding how many of its licenses are in each state that does not depend on the clock. Whether
-- a license has expired does: a reader adds the rows of the days before today to "expired" and
-- those after it to "active", and counts the licenses that expire today with an index range over
-- expires_at (one day of expiries), so every figure is exact at any instant without a job.
--
-- usage_counts: validation attempts per (hour, status, shard). Validation writes its batch with
-- one INSERT, and the statement trigger adds it to one of 4 shards chosen at random, so
-- concurrent batches rarely wait on one row's lock; readers sum the rows. A window of time
-- ("the last 24 hours") is the sum of its whole hours plus index ranges over created_at for the
-- two partial hours at its ends.
--
-- Both are kept by triggers in the same transaction as the write, whoever writes (services, the
-- validation function, jobs, the marketplace, SQL): statement triggers over the transition
-- tables for inserts and deletes (a batch is one counter update), and for licenses a row
-- trigger on updates of the counted columns only, so validation (which changes other columns)
-- never fires it. Counter rows are written in key order within a statement.
CREATE TABLE "license_counts" (
	"product_id" uuid NOT NULL,
	"license_type" text NOT NULL,
	"expiry_day" date NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"live" bigint DEFAULT 0 NOT NULL,
	"inactive" bigint DEFAULT 0 NOT NULL,
	"suspended" bigint DEFAULT 0 NOT NULL,
	"suspended_unrevoked" bigint DEFAULT 0 NOT NULL,
	"revoked" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "license_counts_pk" PRIMARY KEY("product_id","license_type","expiry_day")
);
--> statement-breakpoint
CREATE TABLE "usage_counts" (
	"hour" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"shard" smallint NOT NULL,
	"records" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_counts_pk" PRIMARY KEY("hour","status","shard")
);
--> statement-breakpoint
-- Every validation batch rewrites a counter row: vacuum this small table after every thousand
-- dead rows rather than after a fifth of it, so readers never scan a bloated table.
ALTER TABLE "usage_counts" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
--> statement-breakpoint
CREATE FUNCTION license_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO license_counts AS c (product_id, license_type, expiry_day, total, live, inactive, suspended, suspended_unrevoked, revoked)
  SELECT r.product_id, r.license_type, coalesce((r.expires_at AT TIME ZONE 'UTC')::date, 'infinity'::date),
         sum(1),
         coalesce(sum(1) FILTER (WHERE r.active AND NOT r.suspended AND NOT r.revoked), 0),
         coalesce(sum(1) FILTER (WHERE NOT r.active AND NOT r.suspended AND NOT r.revoked), 0),
         coalesce(sum(1) FILTER (WHERE r.suspended), 0),
         coalesce(sum(1) FILTER (WHERE r.suspended AND NOT r.revoked), 0),
         coalesce(sum(1) FILTER (WHERE r.revoked), 0)
    FROM license_counts_new r
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (product_id, license_type, expiry_day) DO UPDATE SET
    total = c.total + EXCLUDED.total, live = c.live + EXCLUDED.live, inactive = c.inactive + EXCLUDED.inactive,
    suspended = c.suspended + EXCLUDED.suspended, suspended_unrevoked = c.suspended_unrevoked + EXCLUDED.suspended_unrevoked,
    revoked = c.revoked + EXCLUDED.revoked;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION license_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO license_counts AS c (product_id, license_type, expiry_day, total, live, inactive, suspended, suspended_unrevoked, revoked)
  SELECT r.product_id, r.license_type, coalesce((r.expires_at AT TIME ZONE 'UTC')::date, 'infinity'::date),
         sum(-1),
         coalesce(sum(-1) FILTER (WHERE r.active AND NOT r.suspended AND NOT r.revoked), 0),
         coalesce(sum(-1) FILTER (WHERE NOT r.active AND NOT r.suspended AND NOT r.revoked), 0),
         coalesce(sum(-1) FILTER (WHERE r.suspended), 0),
         coalesce(sum(-1) FILTER (WHERE r.suspended AND NOT r.revoked), 0),
         coalesce(sum(-1) FILTER (WHERE r.revoked), 0)
    FROM license_counts_old r
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (product_id, license_type, expiry_day) DO UPDATE SET
    total = c.total + EXCLUDED.total, live = c.live + EXCLUDED.live, inactive = c.inactive + EXCLUDED.inactive,
    suspended = c.suspended + EXCLUDED.suspended, suspended_unrevoked = c.suspended_unrevoked + EXCLUDED.suspended_unrevoked,
    revoked = c.revoked + EXCLUDED.revoked;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION license_counts_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO license_counts AS c (product_id, license_type, expiry_day, total, live, inactive, suspended, suspended_unrevoked, revoked)
  SELECT r.product_id, r.license_type, coalesce((r.expires_at AT TIME ZONE 'UTC')::date, 'infinity'::date),
         sum(r.sign),
         coalesce(sum(r.sign) FILTER (WHERE r.active AND NOT r.suspended AND NOT r.revoked), 0),
         coalesce(sum(r.sign) FILTER (WHERE NOT r.active AND NOT r.suspended AND NOT r.revoked), 0),
         coalesce(sum(r.sign) FILTER (WHERE r.suspended), 0),
         coalesce(sum(r.sign) FILTER (WHERE r.suspended AND NOT r.revoked), 0),
         coalesce(sum(r.sign) FILTER (WHERE r.revoked), 0)
    FROM (VALUES (-1, OLD.product_id, OLD.license_type, OLD.expires_at, OLD.active, OLD.suspended, OLD.revoked),
                 (1, NEW.product_id, NEW.license_type, NEW.expires_at, NEW.active, NEW.suspended, NEW.revoked))
         AS r(sign, product_id, license_type, expires_at, active, suspended, revoked)
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (product_id, license_type, expiry_day) DO UPDATE SET
    total = c.total + EXCLUDED.total, live = c.live + EXCLUDED.live, inactive = c.inactive + EXCLUDED.inactive,
    suspended = c.suspended + EXCLUDED.suspended, suspended_unrevoked = c.suspended_unrevoked + EXCLUDED.suspended_unrevoked,
    revoked = c.revoked + EXCLUDED.revoked;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "license_counts_inserted" AFTER INSERT ON "licenses" REFERENCING NEW TABLE AS license_counts_new
  FOR EACH STATEMENT EXECUTE FUNCTION license_counts_inserted();
--> statement-breakpoint
CREATE TRIGGER "license_counts_deleted" AFTER DELETE ON "licenses" REFERENCING OLD TABLE AS license_counts_old
  FOR EACH STATEMENT EXECUTE FUNCTION license_counts_deleted();
--> statement-breakpoint
CREATE TRIGGER "license_counts_moved"
  AFTER UPDATE OF "product_id", "license_type", "expires_at", "active", "suspended", "revoked" ON "licenses" FOR EACH ROW
  WHEN ((OLD.product_id, OLD.license_type, OLD.expires_at, OLD.active, OLD.suspended, OLD.revoked)
        IS DISTINCT FROM (NEW.product_id, NEW.license_type, NEW.expires_at, NEW.active, NEW.suspended, NEW.revoked))
  EXECUTE FUNCTION license_counts_moved();
--> statement-breakpoint
CREATE FUNCTION usage_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_counts AS c (hour, status, shard, records)
  SELECT date_trunc('hour', u.created_at, 'UTC'), u.status, floor(random() * 4)::smallint, count(*)
    FROM usage_counts_new u GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (hour, status, shard) DO UPDATE SET records = c.records + EXCLUDED.records;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_counts AS c (hour, status, shard, records)
  SELECT date_trunc('hour', u.created_at, 'UTC'), u.status, floor(random() * 4)::smallint, -count(*)
    FROM usage_counts_old u GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (hour, status, shard) DO UPDATE SET records = c.records + EXCLUDED.records;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_counts_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_counts AS c (hour, status, shard, records)
  SELECT d.hour, d.status, floor(random() * 4)::smallint, sum(d.records)
    FROM (VALUES (date_trunc('hour', OLD.created_at, 'UTC'), OLD.status, -1), (date_trunc('hour', NEW.created_at, 'UTC'), NEW.status, 1))
         AS d(hour, status, records)
   GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (hour, status, shard) DO UPDATE SET records = c.records + EXCLUDED.records;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "usage_counts_inserted" AFTER INSERT ON "usage_records" REFERENCING NEW TABLE AS usage_counts_new
  FOR EACH STATEMENT EXECUTE FUNCTION usage_counts_inserted();
--> statement-breakpoint
CREATE TRIGGER "usage_counts_deleted" AFTER DELETE ON "usage_records" REFERENCING OLD TABLE AS usage_counts_old
  FOR EACH STATEMENT EXECUTE FUNCTION usage_counts_deleted();
--> statement-breakpoint
CREATE TRIGGER "usage_counts_moved" AFTER UPDATE OF "created_at", "status" ON "usage_records" FOR EACH ROW
  WHEN ((OLD.created_at, OLD.status) IS DISTINCT FROM (NEW.created_at, NEW.status))
  EXECUTE FUNCTION usage_counts_moved();
--> statement-breakpoint
-- GET /api/licenses pages newest first (created_at DESC, id): a page is an index range whatever
-- the table's size (a product filter walks it too, skipping other products' rows; a customer
-- filter uses licenses_customer_idx and sorts that customer's licenses). Migration 0008 made it
-- already; IF NOT EXISTS keeps this one right on its own.
CREATE INDEX IF NOT EXISTS "licenses_created_idx" ON "licenses" USING btree ("created_at" DESC, "id");
--> statement-breakpoint
-- Backfill, after the triggers exist: their locks hold concurrent writers until this migration
-- commits, so every row is counted exactly once.
  INSERT INTO license_counts AS c (product_id, license_type, expiry_day, total, live, inactive, suspended, suspended_unrevoked, revoked)
  SELECT r.product_id, r.license_type, coalesce((r.expires_at AT TIME ZONE 'UTC')::date, 'infinity'::date),
         sum(1),
         coalesce(sum(1) FILTER (WHERE r.active AND NOT r.suspended AND NOT r.revoked), 0),
         coalesce(sum(1) FILTER (WHERE NOT r.active AND NOT r.suspended AND NOT r.revoked), 0),
         coalesce(sum(1) FILTER (WHERE r.suspended), 0),
         coalesce(sum(1) FILTER (WHERE r.suspended AND NOT r.revoked), 0),
         coalesce(sum(1) FILTER (WHERE r.revoked), 0)
    FROM licenses r
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (product_id, license_type, expiry_day) DO UPDATE SET
    total = c.total + EXCLUDED.total, live = c.live + EXCLUDED.live, inactive = c.inactive + EXCLUDED.inactive,
    suspended = c.suspended + EXCLUDED.suspended, suspended_unrevoked = c.suspended_unrevoked + EXCLUDED.suspended_unrevoked,
    revoked = c.revoked + EXCLUDED.revoked;
--> statement-breakpoint
INSERT INTO usage_counts (hour, status, shard, records)
SELECT date_trunc('hour', created_at, 'UTC'), status, 0, count(*) FROM usage_records GROUP BY 1, 2;
