import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One statement (or Drizzle call) that changes a table, and where it is. */
export interface TableWrite {
  table: string;
  /** Path relative to the scan's base folder. */
  file: string;
  line: number;
  kind: 'insert' | 'update' | 'delete' | 'truncate' | 'merge';
}

const sourceFile = /\.(ts|sql)$/;
const skipped = /(\.test\.ts|\.d\.ts|^testing\.ts)$/;

/** Every `.ts` and `.sql` file under `folders`, tests and test helpers (`testing/`, `testing.ts`) left out. */
export function sourceFiles(folders: string[]): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'node_modules' && name !== 'testing') walk(path);
      } else if (sourceFile.test(name) && !skipped.test(name)) {
        found.push(path);
      }
    }
  };
  for (const folder of folders) walk(folder);
  return found.sort();
}

/**
 * `pgTable('name', ...)` definitions, and tables a shared package's factory makes under a name
 * the app gives (`createSessionTable(sessionTableName)` with `sessionTableName = 'paste_session'`
 * in the same file): the variable each table is bound to, by name.
 */
export function tableDefinitions(files: string[]): Map<string, string> {
  const tables = new Map<string, string>();
  for (const file of files) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(file, 'utf8');
    const constants = new Map(
      [...text.matchAll(/const\s+(\w+)\s*=\s*['"](\w+)['"]/g)].map((match) => [match[1]!, match[2]!]),
    );
    for (const match of text.matchAll(
      /export\s+const\s+(\w+)\s*=\s*(?:pgTable|create\w*Table)\(\s*(?:['"](\w+)['"]|(\w+)\s*\))/g,
    )) {
      const name = match[2] ?? constants.get(match[3]!);
      if (name) tables.set(match[1]!, name);
    }
  }
  return tables;
}

/** Comment lines blanked (line numbers kept): a comment that quotes a statement writes nothing. */
function withoutComments(text: string, sql: boolean): string {
  return text
    .split('\n')
    .map((line) => {
      const trimmed = line.trimStart();
      if (sql) return trimmed.startsWith('--') ? '' : line.replace(/\s--\s.*$/, '');
      return trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*') ? '' : line;
    })
    .join('\n');
}

const name = String.raw`"?([a-z_][a-z0-9_]*)"?`;
const sqlWrites: Array<[TableWrite['kind'], RegExp]> = [
  ['insert', new RegExp(String.raw`\bINSERT\s+INTO\s+${name}`, 'gi')],
  // `ON CONFLICT ... DO UPDATE SET` updates the table its INSERT names: not a second write.
  [
    'update',
    new RegExp(String.raw`(?<!\bDO\s+)\bUPDATE\s+(?:ONLY\s+)?${name}(?:\s+(?:AS\s+)?[a-z_]\w*)?\s+SET\b`, 'gi'),
  ],
  ['delete', new RegExp(String.raw`\bDELETE\s+FROM\s+(?:ONLY\s+)?${name}`, 'gi')],
  ['truncate', new RegExp(String.raw`\bTRUNCATE\s+(?:TABLE\s+)?(?:ONLY\s+)?${name}`, 'gi')],
  ['merge', new RegExp(String.raw`\bMERGE\s+INTO\s+${name}`, 'gi')],
];

/**
 * The writes of the known tables in `files`: SQL text (`INSERT INTO`, `UPDATE ... SET`,
 * `DELETE FROM`, `TRUNCATE`, `MERGE INTO`, in strings and in `.sql` files) and Drizzle calls
 * (`.insert(table)`, `.update(table)`, `.delete(table)` on a table variable of `pgTable`).
 * Names that are not tables (a word in a message) are ignored.
 */
export function findTableWrites(files: string[], options: { base: string; tables: Map<string, string> }): TableWrite[] {
  const tableNames = new Set(options.tables.values());
  const writes: TableWrite[] = [];
  for (const file of files) {
    const text = withoutComments(readFileSync(file, 'utf8'), file.endsWith('.sql'));
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    const add = (table: string, kind: TableWrite['kind'], index: number) =>
      writes.push({ table, kind, file: relative(options.base, file), line: lineOf(index) });
    for (const [kind, pattern] of sqlWrites) {
      for (const match of text.matchAll(pattern)) {
        const table = match[1]!.toLowerCase();
        if (tableNames.has(table)) add(table, kind, match.index);
      }
    }
    if (file.endsWith('.ts')) {
      for (const match of text.matchAll(/\.(insert|update|delete)\(\s*(\w+)\s*[,)]/g)) {
        const table = options.tables.get(match[2]!);
        if (table) add(table, match[1] as TableWrite['kind'], match.index);
      }
    }
  }
  return writes;
}

/** One statement (or Drizzle call) that reads a table, and where it is. */
export interface TableRead {
  table: string;
  /** Path relative to the scan's base folder. */
  file: string;
  line: number;
}

// `FROM x` and `JOIN x` in SQL text; `DELETE FROM x` is a write, `FROM unnest(...)` no table.
const sqlReads = new RegExp(String.raw`(?<!\bDELETE\s+)\b(?:FROM|JOIN)\s+(?:ONLY\s+)?${name}(?![\w(])(?!\s*\()`, 'gi');

/**
 * The reads of the known tables in `files`: `FROM` and `JOIN` in SQL text (strings and `.sql`
 * files) and Drizzle's `.from(table)` and `.innerJoin(table)`-style calls. Names that are not
 * tables are ignored.
 */
export function findTableReads(files: string[], options: { base: string; tables: Map<string, string> }): TableRead[] {
  const tableNames = new Set(options.tables.values());
  const reads: TableRead[] = [];
  for (const file of files) {
    const text = withoutComments(readFileSync(file, 'utf8'), file.endsWith('.sql'));
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    const add = (table: string, index: number) =>
      reads.push({ table, file: relative(options.base, file), line: lineOf(index) });
    for (const match of text.matchAll(sqlReads)) {
      const table = match[1]!.toLowerCase();
      if (tableNames.has(table)) add(table, match.index);
    }
    if (file.endsWith('.ts')) {
      for (const match of text.matchAll(/\.(?:from|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*(\w+)\s*[,)]/g)) {
        const table = options.tables.get(match[1]!);
        if (table) add(table, match.index);
      }
    }
  }
  return reads;
}

/** The files that write each table, by table name. */
export function writersByTable(writes: TableWrite[]): Map<string, string[]> {
  const writers = new Map<string, Set<string>>();
  for (const write of writes) {
    if (!writers.has(write.table)) writers.set(write.table, new Set());
    writers.get(write.table)!.add(write.file);
  }
  return new Map([...writers].map(([table, files]) => [table, [...files].sort()]));
}
