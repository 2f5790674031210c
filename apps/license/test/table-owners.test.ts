import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTableReads, findTableWrites, sourceFiles, tableDefinitions, writersByTable } from '@app/db/testing';

// One owner per table: every table is written (INSERT, UPDATE, DELETE, in SQL text or through
// Drizzle) by exactly one repository, and other features change it through that feature's
// service. This scans the app's sources and the shared packages (migrations are history and are
// not scanned; tests and test helpers neither) and fails when a write appears anywhere else.

const root = path.resolve(import.meta.dirname, '../../..');
const packageSources = readdirSync(path.join(root, 'packages')).map((name) => path.join(root, 'packages', name, 'src'));
const files = sourceFiles([path.join(root, 'apps/license/src'), ...packageSources]);
const tables = tableDefinitions(files);
const writes = findTableWrites(files, { base: root, tables });
const reads = findTableReads(files, { base: root, tables });

const app = (file: string) => `apps/license/src/${file}`;

/** The one file that writes each table. */
const owners: Record<string, string | null> = {
  licenses: app('licenses/licenses.repository.ts'),
  license_members: app('licenses/licenses.repository.ts'),
  license_releases: app('licenses/license-releases.repository.ts'),
  // Inserted by the trigger of migration 0022_usage_insight.sql; announced (and dropped with a deleted license) here.
  license_sharing_flags: app('licenses/license-sharing.repository.ts'),
  // The seat rule in SQL (activation, heartbeat, deactivation, the sweep), called by machines.repository.ts.
  machines: app('machines/machine-seat.sql'),
  products: app('products/products.repository.ts'),
  policies: app('policies/policies.repository.ts'),
  policy_entitlements: app('policies/policies.repository.ts'),
  entitlements: app('entitlements/entitlements.repository.ts'),
  releases: app('distribution/releases.repository.ts'),
  release_artifacts: app('distribution/releases.repository.ts'),
  // Inserted by the trigger of migration 0024_release_object_removals.sql; dropped once removed from the store here.
  release_object_removals: app('distribution/releases.repository.ts'),
  license_entitlements: app('licenses/licenses.repository.ts'),
  customers: app('customers/customers.repository.ts'),
  usage_records: app('usage/usage.repository.ts'),
  transactions: app('transactions/transactions.repository.ts'),
  stripe_events: app('stripe/stripe.repository.ts'),
  signing_keys: app('signing/signing-keys.repository.ts'),
  admins: app('admins/admins.repository.ts'),
  api_tokens: app('admins/api-tokens.repository.ts'),
  admin_two_factor: app('two-factor/two-factor.repository.ts'),
  admin_backup_codes: app('two-factor/two-factor.repository.ts'),
  audit_logs: app('audit/audit.repository.ts'),
  automated_actions: app('automations/automations.repository.ts'),
  automated_action_runs: app('automations/automations.repository.ts'),
  automated_action_firings: app('automations/automations.repository.ts'),
  webhook_deliveries: app('webhooks/webhook-deliveries.repository.ts'),
  webhook_endpoints: app('webhooks/webhook-endpoints.repository.ts'),
  license_notices: app('jobs/jobs.repository.ts'),
  anomaly_reports: app('jobs/jobs.repository.ts'),
  // Written by the settings store of @app/settings (packages/settings/src/settings-store.ts),
  // which is given the table's name: no statement here names it.
  license_settings: null,
  // Counters written only by the triggers of migration 0009_license_counts.sql, in the same
  // transaction as each write of licenses or usage_records: no file here.
  license_counts: null,
  usage_counts: null,
  // Daily rollups written only by the trigger of migration 0022_usage_insight.sql, in the same
  // transaction as each usage_records insert: no file here.
  usage_daily: null,
  usage_daily_sightings: null,
  usage_daily_devices: null,
  usage_daily_products: null,
  usage_daily_product_devices: null,
  // Migration 0025_usage_rollup_queue.sql: queued by its trigger, folded by its usage_rollup_fold_v1
  // (called by usage/usage-daily.repository.ts), which also keeps the top licenses' window.
  usage_rollup_queue: null,
  usage_license_window: null,
  usage_license_window_state: null,
  // Sessions are written by connect-pg-simple, the store @app/auth configures: no file here.
  license_session: null,
  // Written by keepGeneratedSecret of @app/db (packages/db/src/generated-secrets.ts), given the
  // table's name at start-up (main.ts): no statement here names it.
  license_generated_secrets: null,
};

/**
 * Writes allowed outside the owner, each with its reason. Keep this list short: a new entry
 * needs a reason as strong as these.
 */
const exceptions: Array<{ table: string; file: string; reason: string }> = [
  {
    table: 'licenses',
    file: app('validation/validate-batch.sql'),
    reason:
      'the batched validation adds IPs and hardware ids, spends credits and counts violations in the same statement that decides (one round trip per batch, limits exact under the row lock): the licenses rule, kept in SQL for speed',
  },
  {
    table: 'usage_records',
    file: app('validation/validate-batch.sql'),
    reason: 'the same statement records every validation attempt, one insert per batch',
  },
  {
    table: 'machines',
    file: app('validation/validate-batch.sql'),
    reason:
      'a validation with a new hardware id activates a machine, and a validation refreshes its machine, in the statement that decides',
  },
  {
    table: 'machines',
    file: app('machines/machines.repository.ts'),
    reason:
      'borrowing extends a seat lease in the statement that locks the license and checks its state (wave 4, offline files)',
  },
  {
    table: 'licenses',
    file: app('machines/machine-seat.sql'),
    reason:
      'a seat is a hardware id of the license: taking or giving one writes used_hwids in the statement that decides, under the row lock',
  },
];

describe('one owner per table (license service)', () => {
  it('finds the tables of the Drizzle schema and the writes in the sources', () => {
    expect([...tables.values()].sort()).toEqual(Object.keys(owners).sort());
    // A scanner that found nothing would prove nothing.
    expect(writes.length).toBeGreaterThan(40);
  });

  it.each(Object.entries(owners))('%s is written only by its owner (and the listed exceptions)', (table, owner) => {
    const allowed = new Set([
      ...(owner ? [owner] : []),
      ...exceptions.filter((entry) => entry.table === table).map((entry) => entry.file),
    ]);
    const writers = writersByTable(writes).get(table) ?? [];
    const strays = writes
      .filter((write) => write.table === table && !allowed.has(write.file))
      .map((write) => `${write.file}:${write.line} ${write.kind}`);
    expect(strays).toEqual([]);
    if (owner) expect(writers).toContain(owner);
  });

  it('every exception is still needed (a write the list names exists)', () => {
    for (const { table, file } of exceptions) {
      expect(
        writes.some((write) => write.table === table && write.file === file),
        `${table} in ${file}`,
      ).toBe(true);
    }
  });
});

// Reads: a table is read by SQL only inside the feature folder that owns it; other features call
// the owner's exported read functions (licenses/license-reads.ts, products.service.ts's
// productForLicense, figure-reads.ts ...). The reads that still cross a border are listed below,
// each with its reason, so a new one fails here until it goes through the owner or is listed.

/** The feature folder that owns each table (its owner's folder; the counters' too). */
const featureOf = (table: string): string | undefined => {
  const counters: Record<string, string> = {
    license_counts: 'licenses',
    usage_counts: 'usage',
    usage_daily: 'usage',
    usage_daily_sightings: 'usage',
    usage_daily_devices: 'usage',
    usage_daily_products: 'usage',
    usage_daily_product_devices: 'usage',
    usage_rollup_queue: 'usage',
    usage_license_window: 'usage',
    usage_license_window_state: 'usage',
  };
  const owner = owners[table];
  return counters[table] ?? (owner ? owner.split('/')[3] : undefined);
};

const crossReads: Array<{ file: string; tables: string[]; reason: string }> = [
  {
    file: app('validation/validate-batch.sql'),
    tables: ['licenses', 'machines', 'policies', 'policy_entitlements', 'entitlements', 'license_entitlements'],
    reason: 'the batched validation decides in one statement per batch, with the policy and entitlements it answers',
  },
  {
    file: app('machines/machine-seat.sql'),
    tables: ['licenses'],
    reason:
      "the seat rule locks the license's row and decides on its state and hardware ids in the statement that takes or gives the seat",
  },
  {
    file: app('machines/machines.repository.ts'),
    tables: ['licenses'],
    reason:
      "a license's machines are listed in the order of its hardware ids, and borrowing locks the license and checks its state in the statement that extends the lease",
  },
  {
    file: app('validation/validation.repository.ts'),
    tables: ['licenses'],
    reason: 'the one-by-one fallback of the batched validation and its answer, on the hot path',
  },
  {
    file: app('licenses/licenses.repository.ts'),
    tables: ['products', 'customers', 'policies', 'policy_entitlements', 'entitlements'],
    reason:
      'left to do: licenseSelect joins the names the license views show (product, customer, policy, entitlement codes); splitting it into owner lookups costs four round trips per list',
  },
  {
    file: app('customer-portal/customer-portal.repository.ts'),
    tables: ['licenses', 'usage_records'],
    reason: "left to do: the portal's license queries and statistics, scoped by the customer's id",
  },
  {
    file: app('usage/usage.repository.ts'),
    tables: ['licenses'],
    reason:
      "the portal's usage reads join the license on the customer's id, so another customer's records are never read",
  },
  {
    file: app('exports/exports.repository.ts'),
    tables: ['licenses', 'products', 'customers', 'transactions'],
    reason: 'left to do: the exports stream keyset batches that join the names beside each row',
  },
  {
    file: app('jobs/jobs.repository.ts'),
    tables: ['licenses', 'usage_records'],
    reason: 'left to do: the expiry and anomaly scans read licenses and usage directly',
  },
  {
    file: app('policies/policies.repository.ts'),
    tables: ['licenses', 'products', 'entitlements'],
    reason:
      "left to do: a policy's license count, its product's name and entitlement codes (subqueries and a join per listed policy)",
  },
  {
    file: app('entitlements/entitlements.repository.ts'),
    tables: ['license_entitlements', 'policy_entitlements'],
    reason: 'an entitlement in use is not deleted: the check runs in the delete statement',
  },
  {
    file: app('audit/audit.repository.ts'),
    tables: ['automated_actions', 'webhook_deliveries', 'webhook_endpoints'],
    reason: "the audit log names each entry's subject in the page query",
  },
];

describe('reads across feature borders (license service)', () => {
  const strayReads = reads.filter((read) => {
    const owner = featureOf(read.table);
    return owner !== undefined && read.file.startsWith('apps/license/src/') && read.file.split('/')[3] !== owner;
  });

  it('finds the reads in the sources', () => {
    expect(reads.length).toBeGreaterThan(60);
  });

  it("reads another feature's table only where listed (with its reason)", () => {
    const unlisted = strayReads
      .filter((read) => !crossReads.some((entry) => entry.file === read.file && entry.tables.includes(read.table)))
      .map((read) => `${read.file}:${read.line} ${read.table}`);
    expect(unlisted).toEqual([]);
  });

  it('every listed cross read still exists', () => {
    for (const { file, tables } of crossReads) {
      for (const table of tables) {
        expect(
          strayReads.some((read) => read.file === file && read.table === table),
          `${table} in ${file}`,
        ).toBe(true);
      }
    }
  });
});
