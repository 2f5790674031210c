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
const files = sourceFiles([path.join(root, 'apps/paste/src'), ...packageSources]);
const tables = tableDefinitions(files);
const writes = findTableWrites(files, { base: root, tables });

/** The one file that writes each table. */
const owners: Record<string, string | null> = {
  pastes: 'apps/paste/src/pastes/pastes.repository.ts',
  // The counters are kept by the statements that change what they count: API usage by the paste
  // inserts (countApiUsageSql, a CTE of the insert: one statement per batch); the stats feature
  // only reads them.
  paste_counters: 'apps/paste/src/pastes/pastes.repository.ts',
  // The statistics: written by the triggers of migration 0005 on insert and delete, and by the
  // views' statement (countViewsSql) inside the paste repository's view statements.
  paste_stats: 'apps/paste/src/pastes/pastes.repository.ts',
  api_keys: 'apps/paste/src/api-keys/api-keys.repository.ts',
  // The wave-3 count per paste: no longer written since wave 4 (only the count per address remains).
  paste_password_attempts: null,
  paste_password_attempts_by_address: 'apps/paste/src/pastes/password-attempts.repository.ts',
  // Written by the settings store of @app/settings (packages/settings/src/settings-store.ts),
  // which is given the table's name: no statement here names it.
  paste_settings: null,
  paste_uploads: 'apps/paste/src/uploads/uploads.repository.ts',
  paste_attachments: 'apps/paste/src/attachments/attachments.repository.ts',
  // Written by keepGeneratedSecret of @app/db (packages/db/src/generated-secrets.ts), given the
  // table's name at start-up (service.ts): no statement here names it.
  paste_generated_secrets: null,
  // Sessions are written by connect-pg-simple, the store @app/auth configures: no file here.
  paste_session: null,
};

describe('one owner per table (paste service)', () => {
  it('finds the tables of the Drizzle schema and the writes in the sources', () => {
    expect([...tables.values()].sort()).toEqual(Object.keys(owners).sort());
    // A scanner that found nothing would prove nothing.
    expect(writes.length).toBeGreaterThan(8);
  });

  it.each(Object.entries(owners))('%s is written only by its owner', (table, owner) => {
    const strays = writes
      .filter((write) => write.table === table && write.file !== owner)
      .map((write) => `${write.file}:${write.line} ${write.kind}`);
    expect(strays).toEqual([]);
    if (owner) expect(writersByTable(writes).get(table)).toEqual([owner]);
  });
});
