-- Insight (wave 4): daily rollups of validations, key-sharing flags, and usage records
-- partitioned by month so that retention drops whole months.
--
-- usage_daily: validation attempts per (UTC day, license, outcome, shard). `outcome` is '' for a
-- success and the error text of a refusal; unknown keys count under a null license and product
-- (the unique index treats nulls as equal). Like usage_counts, a statement trigger adds each
-- batch to one of 4 shards chosen at random, so concurrent batches of one license rarely wait on
-- one row's lock; readers sum the shards.
-- usage_daily_products: the same per (UTC day, product, outcome, shard), so a product's or every
-- product's days read 30 rows a day, however many licenses there are (null product: unknown keys).
-- usage_daily_product_devices: the distinct machines and addresses of a product's licenses per
-- day (the sum over its licenses: a machine is a license's).
-- usage_daily_sightings: the distinct addresses ('ip') and hardware ids ('hwid') of each license
-- per day, each inserted once (ON CONFLICT DO NOTHING: a known one writes nothing).
-- usage_daily_devices: how many of them per (day, license): raised only by the sightings that
-- were new, so the distinct counts are exact under concurrency (the unique index decides).
-- license_sharing_flags: a license whose distinct addresses in a day exceed its
-- sharing_address_limit (or its policy's), once per license and day; the sharing scan announces
-- each one (LICENSE_SHARING_SUSPECTED) and marks it announced.
--
-- All are kept by a statement trigger on usage_records in the same transaction as the
-- validation batch's one INSERT, so nothing is counted twice or lost, whoever writes.
CREATE TABLE "usage_daily" (
	"day" date NOT NULL,
	"license_id" uuid,
	"product_id" uuid,
	"outcome" text NOT NULL,
	"shard" smallint NOT NULL,
	"records" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "usage_daily_key" ON "usage_daily" ("day", "license_id", "outcome", "shard") NULLS NOT DISTINCT;
--> statement-breakpoint
CREATE INDEX "usage_daily_license_idx" ON "usage_daily" ("license_id", "day");
--> statement-breakpoint
ALTER TABLE "usage_daily" SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000);
--> statement-breakpoint
CREATE TABLE "usage_daily_sightings" (
	"day" date NOT NULL,
	"license_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "usage_daily_sightings_pk" PRIMARY KEY ("day", "license_id", "kind", "value")
);
--> statement-breakpoint
CREATE TABLE "usage_daily_devices" (
	"day" date NOT NULL,
	"license_id" uuid NOT NULL,
	"product_id" uuid,
	"machines" bigint DEFAULT 0 NOT NULL,
	"addresses" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_devices_pk" PRIMARY KEY ("day", "license_id")
);
--> statement-breakpoint
CREATE TABLE "usage_daily_products" (
	"day" date NOT NULL,
	"product_id" uuid,
	"outcome" text NOT NULL,
	"shard" smallint NOT NULL,
	"records" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "usage_daily_products_key" ON "usage_daily_products" ("day", "product_id", "outcome", "shard") NULLS NOT DISTINCT;
--> statement-breakpoint
ALTER TABLE "usage_daily_products" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
--> statement-breakpoint
CREATE TABLE "usage_daily_product_devices" (
	"day" date NOT NULL,
	"product_id" uuid NOT NULL,
	"machines" bigint DEFAULT 0 NOT NULL,
	"addresses" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_product_devices_pk" PRIMARY KEY ("day", "product_id")
);
--> statement-breakpoint
CREATE TABLE "license_sharing_flags" (
	"license_id" uuid NOT NULL,
	"day" date NOT NULL,
	"addresses" bigint NOT NULL,
	"address_limit" integer NOT NULL,
	"flagged_at" timestamp with time zone DEFAULT now() NOT NULL,
	"announced_at" timestamp with time zone,
	CONSTRAINT "license_sharing_flags_pk" PRIMARY KEY ("license_id", "day")
);
--> statement-breakpoint
CREATE INDEX "license_sharing_flags_unannounced_idx" ON "license_sharing_flags" ("flagged_at") WHERE "announced_at" IS NULL;
--> statement-breakpoint
ALTER TABLE "licenses" ADD COLUMN "sharing_address_limit" integer;
--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_sharing_address_limit_check" CHECK ("sharing_address_limit" IS NULL OR "sharing_address_limit" >= 1);
--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "sharing_address_limit" integer;
--> statement-breakpoint
ALTER TABLE "policies" ADD CONSTRAINT "policies_sharing_address_limit_check" CHECK ("sharing_address_limit" IS NULL OR "sharing_address_limit" >= 1);
--> statement-breakpoint
-- Usage records partitioned by month of created_at (UTC). The table is rebuilt: a plain table
-- cannot become partitioned in place. The primary key holds the partition key, as PostgreSQL
-- requires; ids keep coming from one sequence (identity columns of partitioned tables need
-- PostgreSQL 17). A default partition takes rows of months no partition exists for yet (a clock
-- far off); usage_records_ensure_partitions creates the coming months' ahead of time.
ALTER TABLE "usage_records" RENAME TO "usage_records_unpartitioned";
--> statement-breakpoint
ALTER TABLE "usage_records_unpartitioned" RENAME CONSTRAINT "usage_records_status_check" TO "usage_records_unpartitioned_status_check";
--> statement-breakpoint
ALTER INDEX "usage_records_license_created_idx" RENAME TO "usage_records_unpartitioned_license_created_idx";
--> statement-breakpoint
ALTER INDEX "usage_records_created_idx" RENAME TO "usage_records_unpartitioned_created_idx";
--> statement-breakpoint
ALTER INDEX "usage_records_pkey" RENAME TO "usage_records_unpartitioned_pkey";
--> statement-breakpoint
CREATE SEQUENCE "usage_records_record_id_seq" AS bigint;
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"id" bigint DEFAULT nextval('usage_records_record_id_seq') NOT NULL,
	"license_id" uuid,
	"ip" text,
	"hwid" text,
	"status" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_records_pkey" PRIMARY KEY ("id", "created_at"),
	CONSTRAINT "usage_records_status_check" CHECK ("status" in ('success', 'blocked', 'invalid'))
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
ALTER SEQUENCE "usage_records_record_id_seq" OWNED BY "usage_records"."id";
--> statement-breakpoint
CREATE INDEX "usage_records_license_created_idx" ON "usage_records" USING btree ("license_id", "created_at");
--> statement-breakpoint
CREATE INDEX "usage_records_created_idx" ON "usage_records" USING btree ("created_at");
--> statement-breakpoint
CREATE TABLE "usage_records_default" PARTITION OF "usage_records" DEFAULT;
--> statement-breakpoint
-- Creates the monthly partitions (`usage_records_YYYYMM`) from `p_from`'s month to `p_to`'s
-- month, both included, skipping a month the default partition already holds rows of (they stay
-- there; retention deletes them). Answers how many it created.
CREATE FUNCTION usage_records_ensure_partitions(p_from timestamptz, p_to timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  month_start timestamptz := date_trunc('month', p_from, 'UTC');
  month_end timestamptz;
  part text;
  created integer := 0;
BEGIN
  WHILE month_start <= p_to LOOP
    month_end := month_start + interval '1 month';
    part := 'usage_records_' || to_char(month_start AT TIME ZONE 'UTC', 'YYYYMM');
    IF to_regclass(part) IS NULL
       AND NOT EXISTS (SELECT 1 FROM usage_records_default d WHERE d.created_at >= month_start AND d.created_at < month_end) THEN
      EXECUTE format('CREATE TABLE %I PARTITION OF usage_records FOR VALUES FROM (%L) TO (%L)', part, month_start, month_end);
      created := created + 1;
    END IF;
    month_start := month_end;
  END LOOP;
  RETURN created;
END $$;
--> statement-breakpoint
-- Retention: drops the monthly partitions that end at or before `p_cutoff` (their rows are all
-- older) and deletes the older rows of the default partition; with `p_exact`, also the rows
-- older than the cutoff in the partition that holds it (the embedded database, where a month is
-- small). Rollups are kept, and so are the hourly counters of migration 0009: the rows deleted
-- here are added back to usage_counts in the same statement as their trigger takes them off (a
-- dropped partition fires no trigger), so all-time figures do not shrink with retention.
-- Answers how many partitions it dropped.
CREATE FUNCTION usage_records_prune(p_cutoff timestamptz, p_exact boolean) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  part record;
  dropped integer := 0;
BEGIN
  FOR part IN
    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'usage_records'::regclass AND c.relname ~ '^usage_records_[0-9]{6}$'
      AND (to_timestamp(substr(c.relname, 15), 'YYYYMM') AT TIME ZONE 'UTC') + interval '1 month'
          <= p_cutoff AT TIME ZONE 'UTC'
    ORDER BY c.relname
  LOOP
    EXECUTE format('DROP TABLE %I', part.relname);
    dropped := dropped + 1;
  END LOOP;
  -- Through the parent table, so its statement triggers fire as for any other delete.
  WITH gone AS (DELETE FROM usage_records WHERE created_at < p_cutoff AND tableoid = 'usage_records_default'::regclass
                RETURNING created_at, status)
  INSERT INTO usage_counts AS c (hour, status, shard, records)
  SELECT date_trunc('hour', g.created_at, 'UTC'), g.status, 0, count(*) FROM gone g GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (hour, status, shard) DO UPDATE SET records = c.records + EXCLUDED.records;
  IF p_exact THEN
    WITH gone AS (DELETE FROM usage_records WHERE created_at < p_cutoff RETURNING created_at, status)
    INSERT INTO usage_counts AS c (hour, status, shard, records)
    SELECT date_trunc('hour', g.created_at, 'UTC'), g.status, 0, count(*) FROM gone g GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (hour, status, shard) DO UPDATE SET records = c.records + EXCLUDED.records;
  END IF;
  DELETE FROM usage_daily_sightings WHERE day < (p_cutoff AT TIME ZONE 'UTC')::date - 1;
  RETURN dropped;
END $$;
--> statement-breakpoint
SELECT usage_records_ensure_partitions(
  least(coalesce((SELECT min(created_at) FROM usage_records_unpartitioned), now()), now()),
  greatest(coalesce((SELECT max(created_at) FROM usage_records_unpartitioned), now()), now()) + interval '2 months');
--> statement-breakpoint
INSERT INTO "usage_records" (id, license_id, ip, hwid, status, reason, created_at)
SELECT id, license_id, ip, hwid, status, reason, created_at FROM "usage_records_unpartitioned";
--> statement-breakpoint
SELECT setval('usage_records_record_id_seq', coalesce((SELECT max(id) FROM usage_records), 0) + 1, false);
--> statement-breakpoint
DROP TABLE "usage_records_unpartitioned";
--> statement-breakpoint
-- The counters of migration 0009 follow the table (its triggers went with the old one).
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
CREATE FUNCTION usage_daily_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH counts AS (
    SELECT (u.created_at AT TIME ZONE 'UTC')::date AS day, u.license_id, l.product_id, coalesce(u.reason, '') AS outcome,
           count(*) AS n
      FROM usage_daily_new u LEFT JOIN licenses l ON l.id = u.license_id
     GROUP BY 1, 2, 3, 4
  ), per_license AS (
    INSERT INTO usage_daily AS d (day, license_id, product_id, outcome, shard, records)
    SELECT c.day, c.license_id, c.product_id, c.outcome, floor(random() * 4)::smallint, c.n
      FROM counts c ORDER BY c.day, c.license_id, c.outcome
    ON CONFLICT (day, license_id, outcome, shard) DO UPDATE SET records = d.records + EXCLUDED.records
  )
  INSERT INTO usage_daily_products AS d (day, product_id, outcome, shard, records)
  SELECT c.day, c.product_id, c.outcome, floor(random() * 4)::smallint, sum(c.n)
    FROM counts c GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (day, product_id, outcome, shard) DO UPDATE SET records = d.records + EXCLUDED.records;
  -- New sightings only: a known address or hardware id of the day writes nothing.
  WITH fresh AS (
    INSERT INTO usage_daily_sightings (day, license_id, kind, value)
    SELECT DISTINCT (u.created_at AT TIME ZONE 'UTC')::date, u.license_id, s.kind, s.value
      FROM usage_daily_new u CROSS JOIN LATERAL (VALUES ('ip', u.ip), ('hwid', u.hwid)) AS s(kind, value)
     WHERE u.license_id IS NOT NULL AND s.value IS NOT NULL
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
  ), per_product AS (
    INSERT INTO usage_daily_product_devices AS d (day, product_id, machines, addresses)
    SELECT f.day, l.product_id, count(*) FILTER (WHERE f.kind = 'hwid'), count(*) FILTER (WHERE f.kind = 'ip')
      FROM fresh f JOIN licenses l ON l.id = f.license_id
     GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (day, product_id) DO UPDATE SET
      machines = d.machines + EXCLUDED.machines, addresses = d.addresses + EXCLUDED.addresses
  )
  INSERT INTO license_sharing_flags (license_id, day, addresses, address_limit)
  SELECT c.license_id, c.day, c.addresses, x.address_limit
    FROM counted c JOIN licenses l ON l.id = c.license_id LEFT JOIN policies p ON p.id = l.policy_id
   CROSS JOIN LATERAL (SELECT coalesce(l.sharing_address_limit, p.sharing_address_limit) AS address_limit) x
   WHERE x.address_limit IS NOT NULL AND c.addresses > x.address_limit
  ON CONFLICT (license_id, day) DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "usage_daily_inserted" AFTER INSERT ON "usage_records" REFERENCING NEW TABLE AS usage_daily_new
  FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_inserted();
--> statement-breakpoint
-- Back-fill, after the trigger exists (the rebuilt table is locked until this migration commits).
INSERT INTO usage_daily (day, license_id, product_id, outcome, shard, records)
SELECT (u.created_at AT TIME ZONE 'UTC')::date, u.license_id, l.product_id, coalesce(u.reason, ''), 0, count(*)
  FROM usage_records u LEFT JOIN licenses l ON l.id = u.license_id
 GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO usage_daily_sightings (day, license_id, kind, value)
SELECT DISTINCT (u.created_at AT TIME ZONE 'UTC')::date, u.license_id, s.kind, s.value
  FROM usage_records u CROSS JOIN LATERAL (VALUES ('ip', u.ip), ('hwid', u.hwid)) AS s(kind, value)
 WHERE u.license_id IS NOT NULL AND s.value IS NOT NULL;
--> statement-breakpoint
INSERT INTO usage_daily_devices (day, license_id, product_id, machines, addresses)
SELECT s.day, s.license_id, l.product_id, count(*) FILTER (WHERE s.kind = 'hwid'), count(*) FILTER (WHERE s.kind = 'ip')
  FROM usage_daily_sightings s LEFT JOIN licenses l ON l.id = s.license_id
 GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO usage_daily_products (day, product_id, outcome, shard, records)
SELECT day, product_id, outcome, 0, sum(records) FROM usage_daily GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO usage_daily_product_devices (day, product_id, machines, addresses)
SELECT day, product_id, sum(machines), sum(addresses) FROM usage_daily_devices WHERE product_id IS NOT NULL GROUP BY 1, 2;
