-- Machines: a license's hardware ids with a record each (name, platform, last IP, activation,
-- last seen, lease), and floating seats (licenses.heartbeat_seconds).
--
-- licenses.used_hwids stays what validation reads in its one statement; machines holds one row
-- per fingerprint of it. The writers that know the caller's clock (validation, the seat
-- functions) write the machine row themselves next to the list; the trigger below keeps the two
-- the same for every other writer too (clear, a customer's release, SQL by hand), in the same
-- transaction: it deletes the rows whose fingerprint left the list and adds rows (with the
-- database's clock) for fingerprints that joined it. It fires only when the list changes, so
-- validation's common path (a known hardware id) never runs it.
ALTER TABLE "licenses" ADD COLUMN "heartbeat_seconds" integer;
--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_heartbeat_check" CHECK ("licenses"."heartbeat_seconds" BETWEEN 10 AND 86400);
--> statement-breakpoint
CREATE TABLE "machines" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"license_id" uuid NOT NULL,
	"fingerprint" text NOT NULL,
	"name" text,
	"platform" text,
	"last_ip" text,
	"activated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "machines" ADD CONSTRAINT "machines_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "machines_license_fingerprint_idx" ON "machines" USING btree ("license_id","fingerprint");
--> statement-breakpoint
CREATE INDEX "machines_lease_idx" ON "machines" USING btree ("lease_expires_at") WHERE "machines"."lease_expires_at" IS NOT NULL;
--> statement-breakpoint
-- The hardware ids recorded so far become machines, first seen when their license was made.
INSERT INTO "machines" ("license_id", "fingerprint", "activated_at", "last_seen_at")
SELECT l.id, h.fingerprint, l.created_at, coalesce(l.last_validated_at, l.created_at)
FROM "licenses" l, unnest(l.used_hwids) AS h(fingerprint)
ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE FUNCTION license_machines_follow_hwids() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.heartbeat_seconds IS DISTINCT FROM OLD.heartbeat_seconds THEN
    -- Floating seats switched on, off or changed: every machine gets a fresh lease (or none).
    UPDATE machines m SET lease_expires_at = now() + make_interval(secs => NEW.heartbeat_seconds) WHERE m.license_id = NEW.id;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.used_hwids IS NOT DISTINCT FROM OLD.used_hwids THEN
    RETURN NULL;
  END IF;
  DELETE FROM machines m WHERE m.license_id = NEW.id AND NOT (m.fingerprint = ANY (NEW.used_hwids));
  INSERT INTO machines (license_id, fingerprint, lease_expires_at)
  SELECT NEW.id, h.fingerprint, now() + make_interval(secs => NEW.heartbeat_seconds)
  FROM unnest(NEW.used_hwids) AS h(fingerprint)
  WHERE NOT (h.fingerprint = ANY (CASE WHEN TG_OP = 'INSERT' THEN '{}'::text[] ELSE OLD.used_hwids END))
  ON CONFLICT (license_id, fingerprint) DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER licenses_machines_inserted AFTER INSERT ON "licenses"
FOR EACH ROW WHEN (cardinality(NEW.used_hwids) > 0) EXECUTE FUNCTION license_machines_follow_hwids();
--> statement-breakpoint
CREATE TRIGGER licenses_machines_updated AFTER UPDATE OF used_hwids, heartbeat_seconds ON "licenses"
FOR EACH ROW WHEN (OLD.used_hwids IS DISTINCT FROM NEW.used_hwids OR OLD.heartbeat_seconds IS DISTINCT FROM NEW.heartbeat_seconds)
EXECUTE FUNCTION license_machines_follow_hwids();
--> statement-breakpoint
-- validate-batch.sql: new machines, machines seen, floating seats. Its answer has two more
-- columns, so the old function goes first.
DROP FUNCTION license_validate_batch(text[], text[], text[], timestamptz);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION license_validate_batch(p_keys text[], p_ips text[], p_hwids text[], p_now timestamptz)
RETURNS TABLE (
  n integer, id uuid, key text, active boolean, expires_at timestamptz, license_type text,
  ip_limit integer, hwid_limit integer, used_ips text[], used_hwids text[],
  credits_total integer, credits_used integer, error text, violation_count integer,
  machine_added boolean, lapsed_hwids text[]
)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  item record;
  lic record;
  needs_lock boolean;
  locked boolean;
  verdict text;
  record_n integer[] := '{}';
  record_license uuid[] := '{}';
  record_status text[] := '{}';
  record_reason text[] := '{}';
  lapsed text[];
  seen_license uuid[] := '{}';
  seen_hwid text[] := '{}';
  seen_ip text[] := '{}';
  seen_heartbeat integer[] := '{}';
BEGIN
  FOR item IN
    SELECT i.ord::integer AS ord, i.k, i.ip, i.hwid
    FROM unnest(p_keys, p_ips, p_hwids) WITH ORDINALITY AS i(k, ip, hwid, ord)
    ORDER BY i.k, i.ord
  LOOP
    SELECT l.id, l.key, l.active, l.suspended, l.revoked, l.expires_at, l.license_type, l.ip_limit, l.hwid_limit,
           l.used_ips, l.used_hwids, l.credits_total, l.credits_used, l.parent_id, l.violation_count, l.heartbeat_seconds
    INTO lic FROM licenses l WHERE l.key = item.k;

    locked := false;
    needs_lock := false;
    IF FOUND THEN
      needs_lock := (item.ip IS NOT NULL AND NOT (item.ip = ANY (lic.used_ips)))
        OR (item.hwid IS NOT NULL AND NOT (item.hwid = ANY (lic.used_hwids)))
        OR lic.license_type = 'consumption'
        OR (lic.heartbeat_seconds IS NOT NULL AND item.hwid IS NOT NULL AND EXISTS (
          SELECT 1 FROM machines m WHERE m.license_id = lic.id AND m.fingerprint = item.hwid AND m.lease_expires_at < p_now));
      IF needs_lock THEN
        -- The key is checked again: a rotation committed while we waited retires the old key.
        SELECT l.id, l.key, l.active, l.suspended, l.revoked, l.expires_at, l.license_type, l.ip_limit, l.hwid_limit,
               l.used_ips, l.used_hwids, l.credits_total, l.credits_used, l.parent_id, l.violation_count, l.heartbeat_seconds
        INTO lic FROM licenses l WHERE l.id = lic.id AND l.key = item.k FOR UPDATE;
        locked := FOUND;
      END IF;
    END IF;

    IF lic.id IS NULL OR (needs_lock AND NOT locked) THEN
      n := item.ord; id := NULL; key := NULL; active := NULL; expires_at := NULL; license_type := NULL;
      ip_limit := NULL; hwid_limit := NULL; used_ips := NULL; used_hwids := NULL; credits_total := NULL;
      credits_used := NULL; error := 'License not found'; violation_count := NULL; machine_added := NULL; lapsed_hwids := NULL;
      record_n := record_n || item.ord; record_license := record_license || NULL::uuid;
      record_status := record_status || 'invalid'::text; record_reason := record_reason || 'License not found'::text;
      RETURN NEXT;
      CONTINUE;
    END IF;

    verdict := CASE
      WHEN lic.revoked THEN 'License revoked'
      WHEN lic.suspended THEN 'License suspended'
      WHEN NOT lic.active THEN 'License not active'
      WHEN lic.expires_at IS NOT NULL AND lic.expires_at <= p_now THEN 'License expired'
    END;
    -- A child is valid only while its master is: it answers with the master's own state.
    IF verdict IS NULL AND lic.parent_id IS NOT NULL THEN
      SELECT CASE
        WHEN m.id IS NULL OR NOT m.active THEN 'License not active'
        WHEN m.revoked THEN 'License revoked'
        WHEN m.suspended THEN 'License suspended'
        WHEN m.expires_at IS NOT NULL AND m.expires_at <= p_now THEN 'License expired'
      END INTO verdict
      FROM (SELECT lic.parent_id AS parent_id) parent LEFT JOIN licenses m ON m.id = parent.parent_id;
    END IF;
    -- Floating seats: lapsed machines give their seats back before the limit is checked.
    lapsed := '{}';
    IF verdict IS NULL AND locked AND lic.heartbeat_seconds IS NOT NULL AND item.hwid IS NOT NULL THEN
      WITH gone AS (DELETE FROM machines m WHERE m.license_id = lic.id AND m.lease_expires_at < p_now RETURNING m.fingerprint)
      SELECT coalesce(array_agg(gone.fingerprint), '{}') INTO lapsed FROM gone;
      IF cardinality(lapsed) > 0 THEN
        UPDATE licenses t SET used_hwids = ARRAY(
          SELECT u.h FROM unnest(t.used_hwids) WITH ORDINALITY AS u(h, o) WHERE NOT (u.h = ANY (lapsed)) ORDER BY u.o)
        WHERE t.id = lic.id RETURNING t.used_hwids INTO lic.used_hwids;
      END IF;
    END IF;
    IF verdict IS NULL THEN
      verdict := CASE
        WHEN lic.license_type = 'consumption' AND lic.credits_used >= lic.credits_total THEN 'No credits remaining'
        WHEN item.ip IS NOT NULL AND lic.ip_limit > 0 AND NOT (item.ip = ANY (lic.used_ips))
          AND cardinality(lic.used_ips) >= lic.ip_limit THEN 'IP limit exceeded'
        WHEN item.hwid IS NOT NULL AND lic.hwid_limit > 0 AND NOT (item.hwid = ANY (lic.used_hwids))
          AND cardinality(lic.used_hwids) >= lic.hwid_limit THEN 'HWID limit exceeded'
      END;
    END IF;

    violation_count := NULL;
    machine_added := coalesce(verdict IS NULL AND item.hwid IS NOT NULL AND NOT (item.hwid = ANY (lic.used_hwids)), false);
    IF machine_added THEN
      INSERT INTO machines (license_id, fingerprint, last_ip, activated_at, last_seen_at, lease_expires_at)
      VALUES (lic.id, item.hwid, item.ip, p_now, p_now, p_now + make_interval(secs => lic.heartbeat_seconds))
      ON CONFLICT (license_id, fingerprint) DO NOTHING;
    ELSIF verdict IS NULL AND item.hwid IS NOT NULL THEN
      seen_license := seen_license || lic.id; seen_hwid := seen_hwid || item.hwid;
      seen_ip := seen_ip || item.ip; seen_heartbeat := seen_heartbeat || lic.heartbeat_seconds;
    END IF;
    lapsed_hwids := lapsed;
    -- Only a locked row is written: its values are the ones the verdict saw.
    IF locked AND (verdict IS NULL OR verdict IN ('IP limit exceeded', 'HWID limit exceeded')) THEN
      UPDATE licenses t SET
        used_ips = CASE WHEN verdict IS NULL AND item.ip IS NOT NULL AND NOT (item.ip = ANY (t.used_ips))
          THEN array_append(t.used_ips, item.ip) ELSE t.used_ips END,
        used_hwids = CASE WHEN verdict IS NULL AND item.hwid IS NOT NULL AND NOT (item.hwid = ANY (t.used_hwids))
          THEN array_append(t.used_hwids, item.hwid) ELSE t.used_hwids END,
        credits_used = t.credits_used + CASE WHEN verdict IS NULL AND t.license_type = 'consumption' THEN 1 ELSE 0 END,
        violation_count = t.violation_count + CASE WHEN verdict IS NULL THEN 0 ELSE 1 END,
        last_validated_at = CASE WHEN verdict IS NULL THEN p_now ELSE t.last_validated_at END
      WHERE t.id = lic.id
      RETURNING t.used_ips, t.used_hwids, t.credits_used, t.violation_count
      INTO lic.used_ips, lic.used_hwids, lic.credits_used, violation_count;
    END IF;

    n := item.ord; id := lic.id; key := lic.key; active := lic.active; expires_at := lic.expires_at;
    license_type := lic.license_type; ip_limit := lic.ip_limit; hwid_limit := lic.hwid_limit;
    used_ips := lic.used_ips; used_hwids := lic.used_hwids; credits_total := lic.credits_total;
    credits_used := lic.credits_used; error := verdict;
    record_n := record_n || item.ord; record_license := record_license || lic.id;
    record_status := record_status || CASE WHEN verdict IS NULL THEN 'success'
      WHEN verdict IN ('IP limit exceeded', 'HWID limit exceeded') THEN 'blocked' ELSE 'invalid' END;
    record_reason := record_reason || verdict;
    RETURN NEXT;
  END LOOP;

  INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at)
  SELECT r.license_id, p_ips[r.ord], p_hwids[r.ord], r.status, r.reason, p_now
  FROM unnest(record_n, record_license, record_status, record_reason) AS r(ord, license_id, status, reason)
  ORDER BY r.ord;

  -- Machines seen, locked in id order so that two batches never wait for each other in a cycle.
  IF cardinality(seen_hwid) > 0 THEN
    WITH due AS (
      SELECT m.id, s.ip, s.heartbeat FROM machines m
      JOIN unnest(seen_license, seen_hwid, seen_ip, seen_heartbeat) AS s(license_id, hwid, ip, heartbeat)
        ON m.license_id = s.license_id AND m.fingerprint = s.hwid
      WHERE s.heartbeat IS NOT NULL OR m.last_seen_at < p_now - interval '60 seconds'
      ORDER BY m.id FOR UPDATE OF m
    )
    UPDATE machines m SET last_seen_at = p_now, last_ip = coalesce(due.ip, m.last_ip),
      lease_expires_at = p_now + make_interval(secs => due.heartbeat)
    FROM due WHERE m.id = due.id;
  END IF;
END
$$;
--> statement-breakpoint
-- machine-seat.sql: activation, heartbeat and deactivation; the sweep of lapsed seats.
CREATE OR REPLACE FUNCTION license_machine_seat(p_op text, p_key text, p_fingerprint text, p_name text, p_platform text, p_ip text, p_now timestamptz)
RETURNS TABLE (error text, created boolean, license_id uuid, license_key text, machine jsonb, lapsed_hwids text[])
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  lic record;
  verdict text;
  lapsed text[] := '{}';
  held machines%ROWTYPE;
BEGIN
  SELECT l.id, l.key, l.active, l.suspended, l.revoked, l.expires_at, l.parent_id, l.hwid_limit, l.used_hwids, l.heartbeat_seconds
  INTO lic FROM licenses l WHERE l.key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    error := 'License not found'; created := false; lapsed_hwids := '{}';
    RETURN NEXT;
    RETURN;
  END IF;
  license_id := lic.id; license_key := lic.key; created := false;

  verdict := CASE
    WHEN lic.revoked THEN 'License revoked'
    WHEN lic.suspended THEN 'License suspended'
    WHEN NOT lic.active THEN 'License not active'
    WHEN lic.expires_at IS NOT NULL AND lic.expires_at <= p_now THEN 'License expired'
  END;
  IF verdict IS NULL AND lic.parent_id IS NOT NULL THEN
    SELECT CASE
      WHEN m.id IS NULL OR NOT m.active THEN 'License not active'
      WHEN m.revoked THEN 'License revoked'
      WHEN m.suspended THEN 'License suspended'
      WHEN m.expires_at IS NOT NULL AND m.expires_at <= p_now THEN 'License expired'
    END INTO verdict
    FROM (SELECT lic.parent_id AS parent_id) parent LEFT JOIN licenses m ON m.id = parent.parent_id;
  END IF;
  IF verdict IS NOT NULL THEN
    error := verdict; lapsed_hwids := '{}';
    RETURN NEXT;
    RETURN;
  END IF;

  IF lic.heartbeat_seconds IS NOT NULL THEN
    WITH gone AS (DELETE FROM machines m WHERE m.license_id = lic.id AND m.lease_expires_at < p_now RETURNING m.fingerprint)
    SELECT coalesce(array_agg(gone.fingerprint), '{}') INTO lapsed FROM gone;
    IF cardinality(lapsed) > 0 THEN
      UPDATE licenses t SET used_hwids = ARRAY(
        SELECT u.h FROM unnest(t.used_hwids) WITH ORDINALITY AS u(h, o) WHERE NOT (u.h = ANY (lapsed)) ORDER BY u.o)
      WHERE t.id = lic.id RETURNING t.used_hwids INTO lic.used_hwids;
    END IF;
  END IF;
  lapsed_hwids := lapsed;

  SELECT * INTO held FROM machines m WHERE m.license_id = lic.id AND m.fingerprint = p_fingerprint;
  IF held.id IS NULL THEN
    IF p_op <> 'activate' THEN
      error := 'Machine not found';
      RETURN NEXT;
      RETURN;
    END IF;
    IF lic.hwid_limit > 0 AND cardinality(lic.used_hwids) >= lic.hwid_limit THEN
      error := 'HWID limit exceeded';
      RETURN NEXT;
      RETURN;
    END IF;
    INSERT INTO machines (license_id, fingerprint, name, platform, last_ip, activated_at, last_seen_at, lease_expires_at)
    VALUES (lic.id, p_fingerprint, p_name, p_platform, p_ip, p_now, p_now, p_now + make_interval(secs => lic.heartbeat_seconds))
    RETURNING * INTO held;
    UPDATE licenses t SET used_hwids = array_append(t.used_hwids, p_fingerprint) WHERE t.id = lic.id;
    created := true;
  ELSIF p_op = 'deactivate' THEN
    DELETE FROM machines m WHERE m.id = held.id;
    UPDATE licenses t SET used_hwids = array_remove(t.used_hwids, p_fingerprint) WHERE t.id = lic.id;
  ELSE
    UPDATE machines m SET
      name = CASE WHEN p_op = 'activate' THEN coalesce(p_name, m.name) ELSE m.name END,
      platform = CASE WHEN p_op = 'activate' THEN coalesce(p_platform, m.platform) ELSE m.platform END,
      last_ip = coalesce(p_ip, m.last_ip), last_seen_at = p_now,
      lease_expires_at = p_now + make_interval(secs => lic.heartbeat_seconds)
    WHERE m.id = held.id
    RETURNING * INTO held;
  END IF;
  machine := to_jsonb(held);
  RETURN NEXT;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION license_machines_sweep(p_now timestamptz)
RETURNS TABLE (license_id uuid, license_key text, machine jsonb)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  lic record;
BEGIN
  SELECT l.id, l.key INTO lic FROM licenses l
  WHERE l.id IN (SELECT m.license_id FROM machines m WHERE m.lease_expires_at < p_now ORDER BY m.lease_expires_at LIMIT 10)
  ORDER BY l.id LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  license_id := lic.id; license_key := lic.key;
  FOR machine IN DELETE FROM machines m WHERE m.license_id = lic.id AND m.lease_expires_at < p_now RETURNING to_jsonb(m) LOOP
    RETURN NEXT;
  END LOOP;
  UPDATE licenses t SET used_hwids = ARRAY(
    SELECT u.h FROM unnest(t.used_hwids) WITH ORDINALITY AS u(h, o)
    WHERE EXISTS (SELECT 1 FROM machines m WHERE m.license_id = t.id AND m.fingerprint = u.h) ORDER BY u.o)
  WHERE t.id = lic.id;
END
$$;
