-- The seat rule of machines, in SQL like validation's (validate-batch.sql): one statement reads
-- the license under its row lock, decides and writes, so seats are exact under concurrency
-- across any number of instances (machines.test.ts "50 simultaneous activations ...").
--
-- This file is the readable source of the functions (test/machines.test.ts compares them with the
-- database): migration 0011_machines.sql created `license_machines_sweep` and the first
-- `license_machine_seat`; 0018_validate_grace.sql created `license_machine_seat_v2`, which adds
-- `product_id` and honours grace and the expiration strategy, and 0020_license_state_verdict.sql
-- created `license_machine_seat_v3` with this text, which reads the license's state through the
-- functions of licenses/license-state.sql, as validation does. The older functions
-- stay in the database untouched for the instances of the previous releases during a rolling
-- upgrade (validate-batch.sql says more). To change one, edit this file and add a migration with a
-- copy of the statement (a new versioned name when its answer or rule changes).
--
-- p_op: 'activate' takes a seat for p_fingerprint (or refreshes the one it holds: name and
-- platform updated when given); 'heartbeat' refreshes a held seat; 'deactivate' gives it back.
-- Failures, first match wins: the key's state with validation's texts ('License not found',
-- revoked, suspended, not active, expired, a child's master), then 'Machine not found' (heartbeat
-- and deactivate of a fingerprint without a seat) or 'HWID limit exceeded' (activate, no free seat).
-- Expiry is validation's: `grace_days` after `expires_at` a `revoke` license answers 'License
-- expired', a `maintain` one never does (its own or its master's, for a child).
--
-- Floating seats (heartbeat_seconds set): a machine whose lease ran out holds no seat. Every call
-- first removes the license's lapsed machines (under the lock, so a seat is taken and given in
-- one step) and answers their fingerprints in lapsed_hwids, for MACHINE_LEASE_EXPIRED.
--
-- Writes licenses.used_hwids together with the machine row, oldest first: the trigger of
-- migration 0011 then finds both the same and has nothing to do.
CREATE OR REPLACE FUNCTION license_machine_seat_v3(p_op text, p_key text, p_fingerprint text, p_name text, p_platform text, p_ip text, p_now timestamptz)
RETURNS TABLE (error text, created boolean, license_id uuid, license_key text, machine jsonb, lapsed_hwids text[], product_id uuid)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  lic record;
  verdict text;
  lapsed text[] := '{}';
  held machines%ROWTYPE;
BEGIN
  SELECT l.id, l.key, l.active, l.suspended, l.revoked, l.expires_at, l.parent_id, l.hwid_limit, l.used_hwids, l.heartbeat_seconds,
         l.product_id, l.grace_days, l.expiration_strategy
  INTO lic FROM licenses l WHERE l.key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    error := 'License not found'; created := false; lapsed_hwids := '{}';
    RETURN NEXT;
    RETURN;
  END IF;
  license_id := lic.id; license_key := lic.key; product_id := lic.product_id; created := false;

  verdict := license_state_verdict(lic.revoked, lic.suspended, lic.active, lic.expires_at, lic.grace_days,
    lic.expiration_strategy, p_now);
  IF verdict IS NULL AND lic.parent_id IS NOT NULL THEN
    SELECT license_master_verdict(m.id IS NOT NULL, m.revoked, m.suspended, m.active, m.expires_at, m.grace_days,
      m.expiration_strategy, p_now) INTO verdict
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
      -- A borrowed seat (an offline file) keeps its longer lease: renewals never shorten one.
      lease_expires_at = CASE WHEN lic.heartbeat_seconds IS NOT NULL
        THEN greatest(m.lease_expires_at, p_now + make_interval(secs => lic.heartbeat_seconds)) END
    WHERE m.id = held.id
    RETURNING * INTO held;
  END IF;
  machine := to_jsonb(held);
  RETURN NEXT;
END
$$;

-- The batch form (migration 0023): many seat calls in one statement, as validation batches them
-- (validate-batch.sql), so concurrent activations and heartbeats share a round trip and a commit.
-- Items run one after another in key order (then arrival), each through license_machine_seat_v3:
-- a batch locks licenses in the order validation's batches do, so two batches never wait on each
-- other in a cycle, and an item sees what an earlier item of the same license wrote (two
-- activations for the last seat: the first takes it, the second answers 'HWID limit exceeded').
-- `n` is the item's place in the arrays (1-based).
CREATE OR REPLACE FUNCTION license_machine_seat_batch_v1(p_ops text[], p_keys text[], p_fingerprints text[], p_names text[], p_platforms text[], p_ips text[], p_now timestamptz)
RETURNS TABLE (n integer, error text, created boolean, license_id uuid, license_key text, machine jsonb, lapsed_hwids text[], product_id uuid)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  item record;
  answer record;
BEGIN
  FOR item IN
    SELECT i.ord::integer AS ord, i.op, i.k, i.fp, i.nm, i.pf, i.ip
    FROM unnest(p_ops, p_keys, p_fingerprints, p_names, p_platforms, p_ips) WITH ORDINALITY AS i(op, k, fp, nm, pf, ip, ord)
    ORDER BY i.k, i.ord
  LOOP
    SELECT * INTO answer FROM license_machine_seat_v3(item.op, item.k, item.fp, item.nm, item.pf, item.ip, p_now);
    n := item.ord; error := answer.error; created := answer.created; license_id := answer.license_id;
    license_key := answer.license_key; machine := answer.machine; lapsed_hwids := answer.lapsed_hwids;
    product_id := answer.product_id;
    RETURN NEXT;
  END LOOP;
END
$$;

-- The sweep: removes the lapsed machines of one license (the one whose lease ran out first)
-- under its row lock, answering them; the jobs call it until it answers nothing. One license
-- per call holds one row lock at a time, so it never waits in a cycle with a validation batch.
-- A license another transaction holds is skipped until the next call.
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
