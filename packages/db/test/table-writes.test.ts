import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findTableWrites, sourceFiles, tableDefinitions } from '../src/testing/table-writes.js';

const base = mkdtempSync(path.join(tmpdir(), 'table-writes-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function write(file: string, text: string) {
  mkdirSync(path.dirname(path.join(base, file)), { recursive: true });
  writeFileSync(path.join(base, file), text);
}

write(
  'src/notes/notes.table.ts',
  `export const notesTable = pgTable('notes', {});\nexport const tags = pgTable("note_tags", {});`,
);
write(
  'src/notes/notes.repository.ts',
  [
    "await db.query('INSERT INTO notes (title) VALUES ($1) ON CONFLICT (title) DO UPDATE SET title = excluded.title');",
    '// UPDATE notes SET title = 1 — a comment writes nothing',
    ' * DELETE FROM notes (in a doc comment)',
    'await db.query(`UPDATE notes n SET title = $2 WHERE n.id = $1`);',
    'await db.query(\'update "note_tags" AS t set name = 1\');',
    "await db.query('DELETE FROM note_tags WHERE note_id = $1');",
    "throw new Error('Cannot UPDATE the page SET now'); // not a table",
  ].join('\n'),
);
write(
  'src/other/other.service.ts',
  'await db.insert(notesTable).values(row);\nawait db.delete(tags);\nawait db.update(unknownThing).set({});',
);
write(
  'src/other/rule.sql',
  '-- INSERT INTO notes in a comment\nCREATE FUNCTION f() AS $$ BEGIN TRUNCATE TABLE note_tags; END $$;',
);
write(
  'src/access/session.table.ts',
  "export const sessionTableName = 'app_session';\nexport const sessionTable = createSessionTable(sessionTableName);",
);
write('src/access/settings.table.ts', "export const settingsTable = createSettingsTable('app_settings');");
write('src/access/sweep.ts', "await db.query('DELETE FROM app_session WHERE expire < now()');");
write('src/other/other.test.ts', "await db.query('DELETE FROM notes');");
write('src/testing/factories.ts', "await db.query('DELETE FROM notes');");

describe('findTableWrites', () => {
  const files = sourceFiles([path.join(base, 'src')]);
  const tables = tableDefinitions(files);
  const writes = findTableWrites(files, { base, tables })
    .map(({ table, file, line, kind }) => `${table} ${kind} ${file}:${line}`)
    .sort();

  it('knows the tables of pgTable definitions and of table factories (a name or a constant) by their variables', () => {
    expect(Object.fromEntries(tables)).toEqual({
      notesTable: 'notes',
      tags: 'note_tags',
      sessionTable: 'app_session',
      settingsTable: 'app_settings',
    });
  });

  it('finds SQL writes (aliases, quotes, any case), Drizzle calls on table variables and SQL files; skips comments, upserts, tests and test helpers', () => {
    expect(writes).toEqual([
      'app_session delete src/access/sweep.ts:1',
      'note_tags delete src/notes/notes.repository.ts:6',
      'note_tags delete src/other/other.service.ts:2',
      'note_tags truncate src/other/rule.sql:2',
      'note_tags update src/notes/notes.repository.ts:5',
      'notes insert src/notes/notes.repository.ts:1',
      'notes insert src/other/other.service.ts:1',
      'notes update src/notes/notes.repository.ts:4',
    ]);
  });
});
