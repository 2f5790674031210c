-- The validation rule of the license service, in SQL for speed: one statement decides a whole
-- batch of POST /api/license/validate requests (validation.repository.ts calls it), reading,
-- deciding, updating the license and recording the attempt in one round trip and one commit.
--
-- This file is the readable source of the function. Migrations are immutable history: migration
-- 0001_validate_batch.sql created `license_validate_batch`, 0015 and 0016 changed it,
-- 0018_validate_grace.sql created `license_validate_batch_v2`, and 0020_license_state_verdict.sql
-- created `license_validate_batch_v3` with this text, which reads the license's state through the
-- functions of licenses/license-state.sql (the seat rule reads the same). To change the rule,
-- edit this file and add a migration that runs the new CREATE OR REPLACE FUNCTION (a copy of this
-- statement): test/validate-batch-rule.test.ts fails while the function in the database differs
-- from this file (its body and its SET clause), and while a verdict text below is missing from the
-- error catalogue (@app/http).
--
-- Versioned names: a change of the answer's columns (or of the rule an older instance must not
-- apply) gets a new name (`_v2`, `_v3` ...) instead of replacing the function in place, and the
-- older one stays in the database untouched. During a rolling upgrade the instances of the
-- previous release keep calling theirs (its columns unchanged) while the new ones call this one;
-- a later migration may drop the old name once no release calls it.
--
-- SET plan_cache_mode = force_generic_plan: each statement below is planned once per connection
-- and that plan is kept. Left to choose, PostgreSQL planned some of them afresh at every call
-- (the `needs_lock` test, whose EXISTS makes it a query, at every item): every statement is a
-- lookup by key or id, so the kept plan is the same index scan, and a call of a few items
-- takes about a quarter less time than it did when spent planning.
--
-- The rule (and the test that proves each part):
-- * Verdicts, first match wins: unknown key `License not found` (400); `License revoked`,
--   `License suspended`, `License not active`, `License expired` (403); a child license answers
--   with its master's state (a missing or inactive master is `License not active`); then
--   `No credits remaining`, `IP limit exceeded`, `HWID limit exceeded`.
--   validation.test.ts "checks in the order a user expects: revoked before suspended before
--   expired before limits", "validates a child while its master is valid", and the 403 table.
-- * IP and HWID limits: a limit of 0 means unlimited (validation.test.ts "treats a limit of 0 as
--   unlimited"). A known IP (or hardware id) always passes; a new one is added only while the
--   list is below the limit, and the check and the add are one atomic step under the row lock, so
--   200 simultaneous new IPs against a limit of 5 give exactly 5 successes (concurrency.test.ts
--   "when 200 different IPs validate a license limited to 5 at once ...", the HWID twin, and
--   validation-batch.test.ts "keeps limits exact across many small batches of two instances").
--   A refusal by a limit counts in `violation_count` (validation.test.ts "emits
--   NEW_REQUEST_BLOCKED with the running count of blocked validations").
-- * Credits: a consumption license uses one credit per successful validation and none for a
--   refused one; at zero remaining it answers `No credits remaining` (validation.test.ts "uses
--   one credit per successful validation of a consumption license", validation-batch.test.ts
--   "uses credits one by one within a batch; a blocked item uses none", concurrency.test.ts
--   "when a consumption license with 50 credits is validated 80 times at once ...").
-- * Grace and expiry strategies (wave 4, migration 0017): a license's own `grace_days` and
--   `expiration_strategy`, read with the row. The end of its term is `expires_at` plus
--   `grace_days` (whole 24-hour days). Between `expires_at` and that end the license validates
--   and `grace_ends_at` answers the end; after it `revoke` (the default) answers `License
--   expired`, `maintain` keeps validating with `expired` true. A child answers with its master's
--   state, so the master's grace and strategy count too: the earlier grace end, and `expired`
--   when either is kept working past its term. No grace and `revoke` answer exactly as before.
--   validation-grace.test.ts.
-- * Every attempt is recorded in usage_records, unknown keys too (license_id null), in arrival
--   order (validation-batch.test.ts "answers unknown keys, several licenses and every failure in
--   one batch, and records each attempt once").
-- * A rotated key stops validating with the rotation's commit (validation-batch.test.ts "retires
--   a rotated key at once, also for an item that has to lock the row").
-- * Machines (migration 0011): a new hardware id is also a new row of `machines` (inserted here
--   with the caller's clock before the list grows; the list's trigger keeps both the same), and
--   `machine_added` says so. A known one refreshes its machine's last_seen_at and last_ip at the
--   end of the batch, at most once a minute so the common path writes nothing, and every time
--   on a license with floating seats, where it also renews the lease. On such a license a
--   machine whose lease ran out holds no seat: when an item needs a seat (a new hardware id, or
--   its own lease ran out) the lapsed machines are removed under the row lock before the limit
--   is checked, and answered in `lapsed_hwids` (machines.test.ts "a lapsed seat is taken ...").
-- * Entitlements (migration 0012): a license's effective entitlements are its own and its
--   policy's, read here at every validation with the license (a policy change applies at the next
--   one), and answered sorted in `entitlements`
--   with the policy's id and name. An item that asks for codes (`p_entitlements`: its codes
--   joined by commas, or null) of which some are not effective is refused with
--   `Entitlement missing` right after the license's state, before credits and limits, so it uses
--   no credit and takes no seat; the codes are answered sorted in `missing_entitlements`
--   (entitlements.test.ts).
--
-- This function is the one writer of `licenses`, `usage_records` and `machines` outside their repositories
-- (the exception listed in test/table-owners.test.ts): the limits and credits are the licenses
-- rule, applied here so the hot path stays one statement.
--
-- Validates a batch of requests in one statement (one round trip, one commit), each one exactly
-- as if it were alone: items of the same key run one after another in arrival order, and each
-- sees the lists and credits the earlier ones left.
--
-- One statement reads every item's license by key, with its machine (for the hardware id) and
-- its effective entitlements: a statement inside the loop costs PostgreSQL an executor start-up
-- per item, and the read of license and entitlements item by item took about a fifth of the
-- function's time. Items of one key run one after another, and each sees the row as the one
-- before it left it. When the answer depends on the lists or credits (a new IP or hardware id,
-- a consumption license, a lapsed lease) the item locks the row with FOR UPDATE: in READ
-- COMMITTED that waits for a concurrent validation of the same license and then reads the row
-- as it was committed, so check-and-add is one atomic step (the entitlements are read again if
-- the locked row has another policy). Rows are locked in key order, so two batches never wait
-- for each other in a cycle. The common path (known IP and hardware id, no credits) runs no
-- statement in the loop, takes no lock and changes nothing on the license.
--
-- Failure checks run in the order a user expects: not found, revoked, suspended, not active,
-- expired, master, entitlements, credits, IP limit, HWID limit. Every attempt is recorded in usage_records,
-- unknown keys too (license_id null), with one insert for the batch, in arrival order.
CREATE OR REPLACE FUNCTION license_validate_batch_v3(p_keys text[], p_ips text[], p_hwids text[], p_entitlements text[], p_now timestamptz)
RETURNS TABLE (
  n integer, id uuid, key text, active boolean, expires_at timestamptz, license_type text,
  ip_limit integer, hwid_limit integer, used_ips text[], used_hwids text[],
  credits_total integer, credits_used integer, error text, violation_count integer,
  machine_added boolean, lapsed_hwids text[],
  entitlements text[], policy_id uuid, policy_name text, missing_entitlements text[],
  product_id uuid, grace_ends_at timestamptz, expired boolean
)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  item record;
  lic record;
  carried boolean;
  needs_lock boolean;
  locked boolean;
  verdict text;
  prev_key text;
  prev_locked boolean := false;
  record_n integer[] := '{}';
  record_license uuid[] := '{}';
  record_status text[] := '{}';
  record_reason text[] := '{}';
  lapsed text[];
  seen_license uuid[] := '{}';
  seen_hwid text[] := '{}';
  seen_ip text[] := '{}';
  seen_heartbeat integer[] := '{}';
  effective text[];
  effective_policy text;
  missing text[];
  term_end timestamptz;
  master_grace timestamptz;
  master_expired boolean;
  dirty boolean;
  last integer;
  pending_id uuid[] := '{}';
  pending_ips text[] := '{}';
  pending_hwids text[] := '{}';
  pending_credits integer[] := '{}';
  pending_violations integer[] := '{}';
  pending_validated boolean[] := '{}';
BEGIN
  -- One statement reads, for every item, its license, its machine and its effective
  -- entitlements; statements inside the loop run only on the locking path.
  FOR item IN
    SELECT i.ord::integer AS ord, i.k, i.ip, i.hwid, i.wanted, l.*, m.last_seen_at AS machine_seen_at,
           m.lease_expires_at AS machine_lease_expires_at,
           coalesce((SELECT array_agg(e.code ORDER BY e.code COLLATE "C") FROM entitlements e WHERE e.id IN (
             SELECT le.entitlement_id FROM license_entitlements le WHERE le.license_id = l.id
             UNION SELECT pe.entitlement_id FROM policy_entitlements pe WHERE pe.policy_id = l.policy_id)), '{}') AS effective,
           (SELECT p.name FROM policies p WHERE p.id = l.policy_id) AS effective_policy
    FROM unnest(p_keys, p_ips, p_hwids, p_entitlements) WITH ORDINALITY AS i(k, ip, hwid, wanted, ord)
    LEFT JOIN LATERAL (
      SELECT l.id, l.key, l.active, l.suspended, l.revoked, l.expires_at, l.license_type, l.ip_limit, l.hwid_limit,
             l.used_ips, l.used_hwids, l.credits_total, l.credits_used, l.parent_id, l.violation_count, l.heartbeat_seconds,
             l.policy_id, l.product_id, l.grace_days, l.expiration_strategy
      FROM licenses l WHERE l.key = i.k LIMIT 1) l ON true
    LEFT JOIN LATERAL (
      SELECT m.last_seen_at, m.lease_expires_at FROM machines m
      WHERE m.license_id = l.id AND m.fingerprint = i.hwid LIMIT 1) m ON true
    ORDER BY i.k, i.ord
  LOOP
    -- An item of the key before it sees the row as that item left it: none for a key not found,
    -- or found retired under the lock (the locked read found no row), so it answers the same.
    carried := coalesce(item.k = prev_key, false);
    IF NOT carried THEN
      lic := item;
      effective := item.effective;
      effective_policy := item.effective_policy;
      prev_locked := false;
    END IF;
    prev_key := item.k;

    locked := false;
    needs_lock := false;
    IF lic.id IS NOT NULL THEN
      needs_lock := (item.ip IS NOT NULL AND NOT (item.ip = ANY (lic.used_ips)))
        OR (item.hwid IS NOT NULL AND NOT (item.hwid = ANY (lic.used_hwids)))
        OR lic.license_type = 'consumption';
      IF NOT needs_lock AND lic.heartbeat_seconds IS NOT NULL AND item.hwid IS NOT NULL THEN
        IF carried THEN
          needs_lock := EXISTS (SELECT 1 FROM machines m WHERE m.license_id = lic.id AND m.fingerprint = item.hwid AND m.lease_expires_at < p_now);
        ELSE
          needs_lock := coalesce(item.machine_lease_expires_at < p_now, false);
        END IF;
      END IF;
      IF needs_lock AND prev_locked THEN
        locked := true;
      ELSIF needs_lock THEN
        -- The key is checked again: a rotation committed while we waited retires the old key.
        SELECT l.id, l.key, l.active, l.suspended, l.revoked, l.expires_at, l.license_type, l.ip_limit, l.hwid_limit,
               l.used_ips, l.used_hwids, l.credits_total, l.credits_used, l.parent_id, l.violation_count, l.heartbeat_seconds,
               l.policy_id, l.product_id, l.grace_days, l.expiration_strategy
        INTO lic FROM licenses l WHERE l.id = lic.id AND l.key = item.k FOR UPDATE;
        locked := FOUND;
        prev_locked := locked;
        -- The row as locked may have a newer policy than the one read with the batch.
        IF locked AND lic.policy_id IS DISTINCT FROM item.policy_id THEN
          SELECT coalesce((SELECT array_agg(e.code ORDER BY e.code COLLATE "C") FROM entitlements e WHERE e.id IN (
                   SELECT le.entitlement_id FROM license_entitlements le WHERE le.license_id = lic.id
                   UNION SELECT pe.entitlement_id FROM policy_entitlements pe WHERE pe.policy_id = lic.policy_id)), '{}'),
                 (SELECT p.name FROM policies p WHERE p.id = lic.policy_id)
          INTO effective, effective_policy;
        END IF;
      END IF;
    END IF;

    IF lic.id IS NULL OR (needs_lock AND NOT locked) THEN
      n := item.ord; id := NULL; key := NULL; active := NULL; expires_at := NULL; license_type := NULL;
      ip_limit := NULL; hwid_limit := NULL; used_ips := NULL; used_hwids := NULL; credits_total := NULL;
      credits_used := NULL; error := 'License not found'; violation_count := NULL; machine_added := NULL; lapsed_hwids := NULL;
      entitlements := NULL; policy_id := NULL; policy_name := NULL; missing_entitlements := NULL;
      product_id := NULL; grace_ends_at := NULL; expired := NULL;
      record_n := record_n || item.ord; record_license := record_license || NULL::uuid;
      record_status := record_status || 'invalid'::text; record_reason := record_reason || 'License not found'::text;
      RETURN NEXT;
      CONTINUE;
    END IF;

    -- The license's state (license-state.sql); its term ends `grace_days` after `expires_at`.
    verdict := license_state_verdict(lic.revoked, lic.suspended, lic.active, lic.expires_at, lic.grace_days,
      lic.expiration_strategy, p_now);
    term_end := license_term_end(lic.expires_at, lic.grace_days);
    grace_ends_at := CASE WHEN lic.expires_at <= p_now AND term_end > p_now THEN term_end END;
    expired := coalesce(term_end <= p_now, false);
    -- A child is valid only while its master is: it answers with the master's own state.
    IF verdict IS NULL AND lic.parent_id IS NOT NULL THEN
      SELECT license_master_verdict(m.id IS NOT NULL, m.revoked, m.suspended, m.active, m.expires_at, m.grace_days,
        m.expiration_strategy, p_now),
      CASE WHEN m.expires_at <= p_now AND license_term_end(m.expires_at, m.grace_days) > p_now
        THEN license_term_end(m.expires_at, m.grace_days) END,
      coalesce(license_term_end(m.expires_at, m.grace_days) <= p_now, false)
      INTO verdict, master_grace, master_expired
      FROM (SELECT lic.parent_id AS parent_id) parent LEFT JOIN licenses m ON m.id = parent.parent_id;
      grace_ends_at := least(grace_ends_at, master_grace);
      expired := expired OR master_expired;
    END IF;
    missing := NULL;
    IF verdict IS NULL AND item.wanted IS NOT NULL THEN
      SELECT coalesce(array_agg(DISTINCT w.code COLLATE "C" ORDER BY w.code COLLATE "C"), '{}') INTO missing
      FROM unnest(string_to_array(item.wanted, ',')) AS w(code) WHERE NOT (w.code = ANY (effective));
      verdict := CASE WHEN cardinality(missing) > 0 THEN 'Entitlement missing' END;
    END IF;
    -- Floating seats: lapsed machines give their seats back before the limit is checked.
    lapsed := '{}';
    dirty := false;
    IF verdict IS NULL AND locked AND lic.heartbeat_seconds IS NOT NULL AND item.hwid IS NOT NULL THEN
      WITH gone AS (DELETE FROM machines m WHERE m.license_id = lic.id AND m.lease_expires_at < p_now RETURNING m.fingerprint)
      SELECT coalesce(array_agg(gone.fingerprint), '{}') INTO lapsed FROM gone;
      IF cardinality(lapsed) > 0 THEN
        lic.used_hwids := ARRAY(
          SELECT u.h FROM unnest(lic.used_hwids) WITH ORDINALITY AS u(h, o) WHERE NOT (u.h = ANY (lapsed)) ORDER BY u.o);
        dirty := true;
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
    ELSIF verdict IS NULL AND item.hwid IS NOT NULL AND (carried OR lic.heartbeat_seconds IS NOT NULL
        OR item.machine_seen_at < p_now - interval '60 seconds') THEN
      seen_license := seen_license || lic.id; seen_hwid := seen_hwid || item.hwid;
      seen_ip := seen_ip || item.ip; seen_heartbeat := seen_heartbeat || lic.heartbeat_seconds;
    END IF;
    lapsed_hwids := lapsed;
    -- Only a locked row changes: its values are the ones the verdict saw. The batch writes each
    -- changed row once, at its end (it holds their locks): an UPDATE per item cost an executor
    -- start-up and a fresh parse of the table's CHECK constraints each time.
    IF locked AND (verdict IS NULL OR verdict IN ('IP limit exceeded', 'HWID limit exceeded')) THEN
      IF verdict IS NULL AND item.ip IS NOT NULL AND NOT (item.ip = ANY (lic.used_ips)) THEN
        lic.used_ips := lic.used_ips || item.ip;
      END IF;
      IF machine_added THEN
        lic.used_hwids := lic.used_hwids || item.hwid;
      END IF;
      IF verdict IS NULL AND lic.license_type = 'consumption' THEN
        lic.credits_used := lic.credits_used + 1;
      END IF;
      IF verdict IS NOT NULL THEN
        lic.violation_count := lic.violation_count + 1;
      END IF;
      violation_count := lic.violation_count;
      dirty := true;
    END IF;
    IF dirty THEN
      IF pending_id[cardinality(pending_id)] IS DISTINCT FROM lic.id THEN
        pending_id := pending_id || lic.id; pending_validated := pending_validated || false;
      END IF;
      last := cardinality(pending_id);
      pending_ips[last] := lic.used_ips::text; pending_hwids[last] := lic.used_hwids::text;
      pending_credits[last] := lic.credits_used; pending_violations[last] := lic.violation_count;
      pending_validated[last] := pending_validated[last] OR verdict IS NULL;
    END IF;

    n := item.ord; id := lic.id; key := lic.key; active := lic.active; expires_at := lic.expires_at;
    license_type := lic.license_type; ip_limit := lic.ip_limit; hwid_limit := lic.hwid_limit;
    used_ips := lic.used_ips; used_hwids := lic.used_hwids; credits_total := lic.credits_total;
    credits_used := lic.credits_used; error := verdict;
    entitlements := CASE WHEN verdict IS NULL OR verdict = 'Entitlement missing' THEN effective END;
    policy_id := lic.policy_id; policy_name := effective_policy;
    missing_entitlements := missing;
    product_id := lic.product_id;
    record_n := record_n || item.ord; record_license := record_license || lic.id;
    record_status := record_status || CASE WHEN verdict IS NULL THEN 'success'
      WHEN verdict IN ('IP limit exceeded', 'HWID limit exceeded') THEN 'blocked' ELSE 'invalid' END;
    record_reason := record_reason || verdict;
    RETURN NEXT;
  END LOOP;

  -- The lists travel as array literals: an array of arrays must be rectangular.
  IF cardinality(pending_id) > 0 THEN
    UPDATE licenses t SET used_ips = p.ips::text[], used_hwids = p.hwids::text[], credits_used = p.credits,
      violation_count = p.violations, last_validated_at = CASE WHEN p.validated THEN p_now ELSE t.last_validated_at END
    FROM unnest(pending_id, pending_ips, pending_hwids, pending_credits, pending_violations, pending_validated)
      AS p(id, ips, hwids, credits, violations, validated)
    WHERE t.id = p.id;
  END IF;

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
      -- A borrowed seat (an offline file) keeps its longer lease: renewals never shorten one.
      lease_expires_at = CASE WHEN due.heartbeat IS NOT NULL
        THEN greatest(m.lease_expires_at, p_now + make_interval(secs => due.heartbeat)) END
    FROM due WHERE m.id = due.id;
  END IF;
END
$$;
