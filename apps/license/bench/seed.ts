/**
 * A realistic admin's data set for the page benchmarks (`bench:scale`, `bench:pages`), made in
 * SQL with generate_series: no row passes through Node. Ids are derived from the row number
 * (`md5('bench-license-' || n)::uuid`), so usage records, transactions and audit entries name
 * their license without a join, and the benchmarks know ids to put in their addresses.
 *
 * Rows are as the app writes them: keys `<PREFIX>-<24 base-62 characters>`, limits and credits
 * within the table's checks, states through the app's own flags and timestamps, usage records
 * with the statuses and reasons validation records, audit entries with the actions and
 * resource types the app's audit log uses.
 */
import { createHash } from 'node:crypto';
import { withoutIndexes, type Sql } from '../../../scripts/bench/page-timing.js';

export interface SeedSizes {
  products: number;
  customers: number;
  licenses: number;
  usageRecords: number;
  /**
   * Spread the usage records over this many licenses (`activeLicenseNumber(k)`, k = 1..n), each
   * validated several times a day from 2 addresses and 1–2 machines, as a fleet with heartbeats;
   * without it, over every license from 250 addresses and 1,000 machines.
   */
  usageActiveLicenses?: number;
  auditEntries: number;
  transactions: number;
  automations: number;
  automationRuns: number;
  webhookDeliveries: number;
}

export const benchAdminId = 'bench-admin';
/** Customer n signs in as `bench-customer-<n>` (customers whose n ends in 0–6 have a sign-in). */
export const customerUserId = (n: number) => `bench-customer-${n}`;
export const productId = (n: number) => uuidSql(`bench-product-${n}`);
export const customerId = (n: number) => uuidSql(`bench-customer-${n}`);
export const licenseId = (n: number) => uuidSql(`bench-license-${n}`);
/** The license number of active license k (1-based) when the usage records go to a few licenses. */
export const activeLicenseNumber = (k: number, licenses: number) => 1 + ((k * 37) % licenses);
export const automationId = (n: number) => uuidSql(`bench-automation-${n}`);
export const webhookDeliveryId = (n: number) => uuidSql(`bench-delivery-${n}`);

/** The uuid PostgreSQL's md5(text)::uuid gives, computed here (for ids in addresses). */
function uuidSql(text: string): string {
  const hex = createHash('md5').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Seeds every table in one session. Customer n holds the licenses n' with n' % 5 <> 0 and
 * 1 + (n' / 5) % customers = n; product p the licenses with 1 + n % products = p.
 */
export async function seedLicenseData(
  client: Sql,
  sizes: SeedSizes,
  log: (line: string) => void = () => {},
): Promise<void> {
  const step = async (label: string, run: () => Promise<void>) => {
    const started = performance.now();
    await run();
    log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  const { products: P, customers: C, licenses: L } = sizes;

  await step(`${P} products`, async () => {
    await client.query(
      `
      INSERT INTO products (id, name, description, is_active, license_prefix, created_at, updated_at)
      SELECT md5('bench-product-' || p)::uuid, 'Product ' || p, 'Desktop edition ' || p || ' with yearly updates',
             p % 10 <> 0, 'PRD' || p, now() - (p * 17) * interval '1 day', now() - p * interval '1 day'
        FROM generate_series(1, $1::int) AS p`,
      [P],
    );
  });

  await step(`${C.toLocaleString('en')} customers`, async () => {
    await client.query(
      `
      INSERT INTO customers (id, name, email, user_id, created_at, updated_at)
      SELECT md5('bench-customer-' || c)::uuid,
             (ARRAY['Ada', 'Grace', 'Linus', 'Zoë', 'Jürgen', 'Amara', 'Kenji', 'Priya', 'Omar', 'Sofía'])[1 + c % 10] || ' ' ||
             (ARRAY['Lovelace', 'Hopper', 'Okafor', 'Tanaka', 'Müller', 'Nguyen', 'Haddad', 'Silva'])[1 + (c / 10) % 8] || ' ' || c,
             'customer' || c || '@example.com',
             CASE WHEN c % 10 < 7 THEN 'bench-customer-' || c END,
             now() - (c % 700) * interval '1 day', now() - (c % 30) * interval '1 day'
        FROM generate_series(1, $1::int) AS c`,
      [C],
    );
  });

  await step(`${L.toLocaleString('en')} licenses`, async () => {
    await withoutIndexes(client, 'licenses', async () => {
      await client.query(
        `
        INSERT INTO licenses (id, key, product_id, customer_id, license_type, active, suspended, suspend_reason, suspended_at,
                              revoked, revoke_reason, revoked_at, expires_at, ip_limit, hwid_limit, used_ips, used_hwids,
                              credits_total, credits_used, violation_count, last_validated_at, metadata, created_at, updated_at)
        SELECT md5('bench-license-' || n)::uuid,
               'PRD' || (1 + n % $2::int) || '-' ||
                 translate(substr(encode(decode(md5('k' || n) || md5('e' || n), 'hex'), 'base64'), 1, 24), '+/', 'Qz'),
               md5('bench-product-' || (1 + n % $2::int))::uuid,
               CASE WHEN n % 5 <> 0 THEN md5('bench-customer-' || (1 + (n / 5) % $3::int))::uuid END,
               type, n % 100 <> 5,
               n % 100 IN (0, 1, 2), CASE WHEN n % 100 IN (0, 1, 2) THEN 'Payment overdue' END,
               CASE WHEN n % 100 IN (0, 1, 2) THEN created + interval '200 days' END,
               n % 100 IN (3, 4), CASE WHEN n % 100 IN (3, 4) THEN 'Refunded' END,
               CASE WHEN n % 100 IN (3, 4) THEN created + interval '100 days' END,
               CASE WHEN type = 'enterprise' OR type = 'consumption' THEN NULL
                    WHEN n % 10 = 9 THEN now() - (n % 300) * interval '1 day'
                    WHEN type = 'trial' THEN now() + (1 + n % 30) * interval '1 day'
                    ELSE now() + (1 + n % 365) * interval '1 day' END,
               (ARRAY[0, 1, 3, 5])[1 + n % 4], (ARRAY[0, 1, 2, 5])[1 + (n / 4) % 4],
               CASE WHEN n % 3 = 0 THEN ARRAY['203.0.113.' || (n % 250), '198.51.100.' || (n % 200)] ELSE '{}'::text[] END,
               CASE WHEN n % 3 = 0 THEN ARRAY['hw-' || md5('h' || n)] ELSE '{}'::text[] END,
               CASE WHEN type = 'consumption' THEN 1000 ELSE 0 END,
               CASE WHEN type = 'consumption' THEN n % 1001 ELSE 0 END,
               CASE WHEN n % 50 = 0 THEN n % 7 ELSE 0 END,
               CASE WHEN n % 4 <> 0 THEN now() - (n % 90) * interval '1 day' END,
               CASE WHEN n % 8 = 0 THEN jsonb_build_object('order', 'ORD-' || n) ELSE '{}'::jsonb END,
               created, created
          FROM (SELECT n,
                       CASE WHEN n % 20 < 12 THEN 'fixed' WHEN n % 20 < 15 THEN 'trial' WHEN n % 20 < 18 THEN 'consumption' ELSE 'enterprise' END AS type,
                       now() - (($1::int - n)::float8 / $1::int) * interval '730 days' AS created
                  FROM generate_series(1, $1::int) AS n) l`,
        [L, P, C],
      );
    });
  });

  await step(`${sizes.usageRecords.toLocaleString('en')} usage records over 90 days`, async () => {
    await seedUsageRecords(client, sizes, log);
  });

  await step(`${sizes.auditEntries.toLocaleString('en')} audit entries`, async () => {
    await withoutIndexes(client, 'audit_logs', async () => {
      await client.query(
        `
        INSERT INTO audit_logs (user_id, action, resource_type, resource_id, changes, ip, user_agent, success, created_at)
        SELECT CASE WHEN a % 3 = 0 THEN 'bench-admin-2' ELSE 'bench-admin' END,
               (ARRAY['create', 'update', 'suspend', 'activate', 'revoke', 'rotate_key'])[1 + a % 6],
               'license', md5('bench-license-' || (1 + (a::bigint * 104729) % $2::int))::uuid::text,
               jsonb_build_object('before', jsonb_build_object('suspended', false), 'after', jsonb_build_object('suspended', a % 6 = 2)),
               '198.51.100.' || (a % 250), 'Mozilla/5.0 (bench)', a % 40 <> 0,
               now() - (($1::int - a)::float8 / $1::int) * interval '365 days'
          FROM generate_series(1, $1::int) AS a`,
        [sizes.auditEntries, L],
      );
    });
  });

  await step(`${sizes.transactions.toLocaleString('en')} transactions`, () =>
    withoutIndexes(client, 'transactions', async () => {
      await client.query(
        `
      INSERT INTO transactions (customer_id, license_id, product_id, amount, currency, status, external_id, created_at, updated_at)
      SELECT md5('bench-customer-' || (1 + t % $2::int))::uuid, md5('bench-license-' || (1 + (t::bigint * 31) % $3::int))::uuid,
             md5('bench-product-' || (1 + t % $4::int))::uuid, (19 + t % 480) + 0.99, 'usd',
             (ARRAY['completed', 'completed', 'completed', 'completed', 'refunded', 'failed', 'pending'])[1 + t % 7],
             'ch_bench_' || t, now() - (t % 700) * interval '1 day', now() - (t % 700) * interval '1 day'
        FROM generate_series(1, $1::int) AS t`,
        [sizes.transactions, C, L, P],
      );
    }),
  );

  await step(`${sizes.automations} automations, ${sizes.automationRuns.toLocaleString('en')} runs`, async () => {
    await client.query(
      `
      INSERT INTO automated_actions (id, name, description, enabled, trigger_event, trigger, actions, execution_count, last_executed_at, created_at, updated_at)
      SELECT md5('bench-automation-' || a)::uuid, 'Automation ' || a, 'Reacts to ' || ev, a % 4 <> 0, ev,
             CASE WHEN ev = 'violation_threshold' THEN jsonb_build_object('event', ev, 'threshold', 5) ELSE jsonb_build_object('event', ev) END,
             CASE WHEN a % 2 = 0 THEN jsonb_build_array(jsonb_build_object('type', 'send_notification', 'params', jsonb_build_object('message', 'License event')))
                  ELSE jsonb_build_array(jsonb_build_object('type', 'suspend_license', 'params', jsonb_build_object('reason', 'Too many violations'))) END,
             $2::int / greatest($1::int, 1), now() - a * interval '1 hour', now() - a * interval '3 days', now() - a * interval '1 day'
        FROM (SELECT a, (ARRAY['license_created', 'license_expired', 'license_revoked', 'violation_threshold', 'transaction_completed'])[1 + a % 5] AS ev
                FROM generate_series(1, $1::int) AS a) s`,
      [sizes.automations, sizes.automationRuns],
    );
    await client.query(
      `
      INSERT INTO automated_action_runs (action_id, trigger_event, context, success, results, created_at)
      SELECT md5('bench-automation-' || (1 + r % $2::int))::uuid, 'license_created',
             jsonb_build_object('licenseId', md5('bench-license-' || (1 + r % $3::int))::uuid),
             r % 15 <> 0, jsonb_build_array(jsonb_build_object('type', 'send_notification', 'success', r % 15 <> 0)),
             now() - (r % 2000) * interval '1 hour'
        FROM generate_series(1, $1::int) AS r`,
      [sizes.automationRuns, sizes.automations, L],
    );
  });

  await step(`${sizes.webhookDeliveries.toLocaleString('en')} webhook deliveries`, async () => {
    await client.query(
      `
      INSERT INTO webhook_deliveries (id, url, event, payload, status, attempts, last_response_code, last_error, next_retry_at,
                                      last_attempt_at, created_at, delivered_at)
      SELECT md5('bench-delivery-' || d)::uuid, 'https://hooks.example.com/license/' || (d % 3), ev,
             jsonb_build_object('event', ev, 'data', jsonb_build_object('licenseId', md5('bench-license-' || (1 + d % $2::int))::uuid))::text,
             st, CASE WHEN st = 'delivered' THEN 1 WHEN st = 'failed' THEN 8 ELSE 0 END,
             CASE WHEN st = 'delivered' THEN 200 WHEN st = 'failed' THEN 503 END,
             CASE WHEN st = 'failed' THEN 'HTTP 503' END,
             CASE WHEN st = 'pending' THEN now() + interval '1 year' END,
             CASE WHEN st <> 'pending' THEN created END, created,
             CASE WHEN st = 'delivered' THEN created + interval '1 second' END
        FROM (SELECT d, (ARRAY['license.created', 'license.suspended', 'license.revoked', 'license.expired'])[1 + d % 4] AS ev,
                     CASE WHEN d % 20 = 0 THEN 'failed' ELSE 'delivered' END AS st,
                     now() - (($1::int - d)::float8 / $1::int) * interval '60 days' AS created
                FROM generate_series(1, $1::int) AS d) w`,
      [sizes.webhookDeliveries, L],
    );
  });
}

/** Usage records in chunks of this many (one statement each, a few seconds apart in time). */
const usageChunk = 5_000_000;

/**
 * The usage records, made in SQL with the queue's trigger off (nothing is queued), then their
 * rollups back-filled ten days at a time by usage_rollups_backfill_v1 (migration 0024), the path
 * a bulk load takes in production, and the top licenses' window rebuilt by a fold.
 */
async function seedUsageRecords(client: Sql, sizes: SeedSizes, log: (line: string) => void): Promise<void> {
  const { usageRecords: U, licenses: L } = sizes;
  const active = sizes.usageActiveLicenses;
  const started = performance.now();
  await client.query('ALTER TABLE usage_records DISABLE TRIGGER usage_rollup_enqueued');
  await withoutIndexes(client, 'usage_records', async () => {
    for (let from = 0; from < U; from += usageChunk) {
      const count = Math.min(usageChunk, U - from);
      await client.query(
        active
          ? `
        WITH ids AS (SELECT array_agg(md5('bench-license-' || (1 + (k::bigint * 37) % $3::int))::uuid ORDER BY k) AS ids
                       FROM generate_series(1, $4::int) AS k)
        INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at)
        SELECT CASE WHEN u % 200 = 0 THEN NULL ELSE ids.ids[1 + k] END,
               '10.' || (k % 250) || '.' || (k / 250 % 250) || '.' || (u % 2), 'hw-' || k || '-' || (u % 3 = 0)::int,
               CASE WHEN u % 200 = 0 OR u % 25 = 0 THEN 'invalid' WHEN u % 20 = 0 THEN 'blocked' ELSE 'success' END,
               CASE WHEN u % 200 = 0 THEN 'License not found' WHEN u % 25 = 0 THEN 'License expired'
                    WHEN u % 20 = 0 THEN 'IP limit exceeded' END,
               now() - (($1::bigint - u)::float8 / $1::bigint) * interval '90 days'
          FROM ids, generate_series($2::bigint + 1, $2::bigint + $5::bigint) AS u
         CROSS JOIN LATERAL (SELECT ((u * 7919) % $4::int)::int AS k) a`
          : `
        INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at)
        SELECT CASE WHEN u % 200 = 0 THEN NULL ELSE md5('bench-license-' || (1 + (u::bigint * 7919) % $3::int))::uuid END,
               '203.0.113.' || (u % 250), 'hw-' || (u % 1000),
               CASE WHEN u % 200 = 0 OR u % 25 = 0 THEN 'invalid' WHEN u % 20 = 0 THEN 'blocked' ELSE 'success' END,
               CASE WHEN u % 200 = 0 THEN 'License not found' WHEN u % 25 = 0 THEN 'License expired'
                    WHEN u % 20 = 0 THEN 'IP limit exceeded' END,
               now() - (($1::bigint - u)::float8 / $1::bigint) * interval '90 days'
          FROM generate_series($2::bigint + 1, $2::bigint + $4::bigint) AS u`,
        active ? [U, from, L, active, count] : [U, from, L, count],
      );
      log(`    ${(from + count).toLocaleString('en')} records, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  });
  await client.query('ALTER TABLE usage_records ENABLE TRIGGER usage_rollup_enqueued');
  log(`    records and indexes: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const backfillStarted = performance.now();
  for (let days = 91; days > -10; days -= 10)
    await client.query(
      `SELECT usage_rollups_backfill_v1(date_trunc('day', now()) - make_interval(days => $1::int),
                                        date_trunc('day', now()) - make_interval(days => $1::int - 10))`,
      [days],
    );
  await client.query(`SELECT usage_rollup_fold_v1((now() AT TIME ZONE 'UTC')::date, 50000, true)`);
  log(`    rollups back-filled: ${((performance.now() - backfillStarted) / 1000).toFixed(1)} s`);
}
