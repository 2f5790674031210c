-- The state verdict of a license, in SQL: the one place that says in which state a license stops
-- working, read by every statement that decides on a license (validate-batch.sql's
-- `license_validate_batch_v3`, machine-seat.sql's `license_machine_seat_v3`, and borrowing in
-- machines.repository.ts). The same rule in TypeScript for the pages is licenses/license-term.ts.
--
-- This file is the readable source of the functions; migration 0020_license_state_verdict.sql
-- created them with this text (test/license-state-rule.test.ts compares the two). To change one,
-- edit this file and add a migration with a copy of the statement; a change of its arguments or
-- of the rule an older instance must not apply gets a new name, as validate-batch.sql says.
--
-- LANGUAGE sql with a single expression, STABLE (adding an interval to a timestamptz is), no SET
-- clause and no STRICT: the planner inlines each call into the statement that makes it, so the
-- hot path evaluates the same expression it did when the CASE was written out there (the test
-- above checks that the plan shows the CASE, not a call). IMMUTABLE would be a lie the planner
-- answers by not inlining.

-- The end of a license's term: `grace_days` whole 24-hour days after `expires_at` (null: never).
CREATE OR REPLACE FUNCTION license_term_end(p_expires_at timestamptz, p_grace_days integer)
RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT p_expires_at + make_interval(hours => 24 * p_grace_days)
$$;

-- Why a license does not work at `p_now`, or null when it does. First match wins: `License
-- revoked`, `License suspended`, `License not active`, then `License expired` once its term has
-- ended and its strategy is `revoke` (a `maintain` license outlives its term). A child license
-- also answers its master's verdict (license_master_verdict), after its own.
CREATE OR REPLACE FUNCTION license_state_verdict(
  p_revoked boolean, p_suspended boolean, p_active boolean,
  p_expires_at timestamptz, p_grace_days integer, p_expiration_strategy text, p_now timestamptz)
RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_revoked THEN 'License revoked'
    WHEN p_suspended THEN 'License suspended'
    WHEN NOT p_active THEN 'License not active'
    WHEN license_term_end(p_expires_at, p_grace_days) <= p_now AND p_expiration_strategy = 'revoke'
      THEN 'License expired'
  END
$$;

-- A child license's master, as the child answers it: a master that is missing (`p_found` false)
-- or inactive makes the child `License not active` before anything else; then the master's own
-- verdict.
CREATE OR REPLACE FUNCTION license_master_verdict(
  p_found boolean, p_revoked boolean, p_suspended boolean, p_active boolean,
  p_expires_at timestamptz, p_grace_days integer, p_expiration_strategy text, p_now timestamptz)
RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN NOT p_found OR NOT p_active THEN 'License not active'
    ELSE license_state_verdict(p_revoked, p_suspended, p_active, p_expires_at, p_grace_days, p_expiration_strategy, p_now)
  END
$$;
