import { Parser } from '@json2csv/plainjs';

export interface CsvColumn<Row> {
  label: string;
  value: (row: Row) => string | number | boolean | null | undefined;
}

// A cell starting with one of these is run as a formula by spreadsheet programs (CSV/formula
// injection, OWASP); the full-width forms are normalised to them by some programs.
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** Prefixes a single quote so the spreadsheet shows the text instead of evaluating it. */
export function escapeFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * Turns row batches into CSV text, one batch at a time: the header with the first chunk, then
 * only rows. Every text cell is escaped against formula injection; numbers and booleans are
 * written as they are.
 */
export function createCsvEncoder<Row>(columns: CsvColumn<Row>[]) {
  const fields = columns.map((column, index) => ({ label: column.label, value: `c${index}` }));
  const withHeader = new Parser({ fields, header: true, eol: '\n' });
  const withoutHeader = new Parser({ fields, header: false, eol: '\n' });
  const toRecord = (row: Row) => {
    const record: Record<string, string | number | boolean | null> = {};
    columns.forEach((column, index) => {
      const value = column.value(row);
      record[`c${index}`] = typeof value === 'string' ? escapeFormula(value) : (value ?? null);
    });
    return record;
  };
  let headerWritten = false;
  return {
    /** CSV lines of a batch, each ending with a newline. */
    encode(rows: Row[]): string {
      if (!rows.length) return '';
      const parser = headerWritten ? withoutHeader : withHeader;
      headerWritten = true;
      return `${parser.parse(rows.map(toRecord))}\n`;
    },
    /** The header alone, when there were no rows at all. */
    finish(): string {
      if (headerWritten) return '';
      headerWritten = true;
      return `${withHeader.parse([])}\n`;
    },
  };
}
