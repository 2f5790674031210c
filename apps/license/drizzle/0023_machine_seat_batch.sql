-- Activations, heartbeats and deactivations in batches (machines/machine-seat.sql): one statement
-- runs many seat calls through license_machine_seat_v3, in key order like validation's batches.
-- license_machine_seat_v3 stays as it is (the previous release's instances call it alone).
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
