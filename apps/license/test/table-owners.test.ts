import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTableWrites, sourceFiles, tableDefinitions, writersByTable } from '@app/db/testing';

// One owner per table: every table is written (INSERT, UPDATE, DELETE, in SQL text or through
// Drizzle) by exactly one repository, and other features change it through that feature's
// service. This scans the app's sources and the shared packages (migrations are history and are
// not scanned; tests and test helpers neither) and fails when a write appears anywhere else.

const root = path.resolve(import.meta.dirname, '../../..');
const packageSources = readdirSync(path.join(root, 'packages')).map((name) => path.join(root, 'packages', name, 'src'));
const files = sourceFiles([path.join(root, 'apps/license/src'), ...packageSources]);
const tables = tableDefinitions(files);
const writes = findTableWrites(files, { base: root, tables });

const app = (file: string) => `apps/license/src/${file}`;

/** The one file that writes each table. */
const owners: Record<string, string | null> = {
  licenses: app('licenses/licenses.repository.ts'),
  license_members: app('licenses/licenses.repository.ts'),
  // The seat rule in SQL (activation, heartbeat, deactivation, the sweep), called by machines.repository.ts.
  machines: app('licenses/machine-seat.sql'),
  products: app('products/products.repository.ts'),
  policies: app('policies/policies.repository.ts'),
  policy_entitlements: app('policies/policies.repository.ts'),
  entitlements: app('entitlements/entitlements.repository.ts'),
  license_entitlements: app('licenses/licenses.repository.ts'),
  customers: app('customers/customers.repository.ts'),
  usage_records: app('usage/usage.repository.ts'),
  transactions: app('transactions/transactions.repository.ts'),
  stripe_events: app('stripe/stripe.repository.ts'),
  signing_keys: app('validation/signing-keys.repository.ts'),
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
    table: 'licenses',
    file: app('licenses/machine-seat.sql'),
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
