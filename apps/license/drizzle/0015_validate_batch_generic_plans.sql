-- license_validate_batch keeps one plan per statement for the life of a connection
-- (validate-batch.sql says why and what it measured). The function's body is unchanged.
ALTER FUNCTION license_validate_batch(text[], text[], text[], text[], timestamptz) SET plan_cache_mode = force_generic_plan;
