import type { Queryable } from '@app/db';
import type pg from 'pg';
import type { Actor } from '../common/actor.js';
import { recordAudit } from '../audit/audit.service.js';
import type { AuditResourceType } from '../audit/audit.table.js';
import { createCsvEncoder } from './csv.js';
import type { ExportOutput } from './export-output.js';
import {
  licenseCsvColumns,
  licensePdfColumns,
  productSummaryColumns,
  transactionCsvColumns,
} from './export-columns.js';
import { PdfReport } from './pdf.js';
import { licenseBatches, transactionBatches } from './exports.repository.js';
import { summaryStatistics, type SummaryReads } from './summary-statistics.js';
import type { LicenseExportFilter, TransactionExportFilter } from './exports.schema.js';

export interface ExportsOptions {
  pool: pg.Pool;
  /** Where the exported rows are read: the replica when there is one (database.reads); the audit entry goes to `pool`. */
  reads?: Queryable;
  now: () => Date;
  batchSize: number;
  /** The summary's figures, read through the features that own them. */
  summaryReads: SummaryReads;
}
export type ExportsService = ReturnType<typeof createExportsService>;

/** `product=…, active=true` or `none`, as the PDF prints the filters used. */
function describeFilters(filter: Record<string, unknown>): string {
  const used = Object.entries(filter)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${value instanceof Date ? value.toISOString() : String(value)}`);
  return used.length ? used.join(', ') : 'none';
}

const filtersForAudit = (filter: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(filter)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, value instanceof Date ? value.toISOString() : value]),
  );

export function createExportsService({ pool, reads = pool, now, batchSize, summaryReads }: ExportsOptions) {
  /** One `export` audit entry per export, written before the last byte so the file is never ahead of the log. */
  async function audit(
    actor: Actor,
    resourceType: AuditResourceType,
    format: string,
    filter: Record<string, unknown>,
    rows: number,
    completed: boolean,
  ) {
    await recordAudit(pool, actor, {
      action: 'export',
      resourceType,
      success: completed,
      after: { format, filters: filtersForAudit(filter), rows, ...(completed ? {} : { aborted: true }) },
    });
  }

  async function streamCsv<Row>(
    out: ExportOutput,
    batches: AsyncIterable<Row[]>,
    encoder: ReturnType<typeof createCsvEncoder<Row>>,
  ) {
    let rows = 0;
    for await (const batch of batches) {
      rows += batch.length;
      if (!(await out.write(encoder.encode(batch)))) return { rows, completed: false };
    }
    const tail = encoder.finish();
    if (tail && !(await out.write(tail))) return { rows, completed: false };
    return { rows, completed: true };
  }

  return {
    async licensesCsv(actor: Actor, filter: LicenseExportFilter, out: ExportOutput): Promise<void> {
      const at = now();
      const result = await streamCsv(
        out,
        licenseBatches(reads, filter, batchSize),
        createCsvEncoder(licenseCsvColumns(at)),
      );
      await audit(actor, 'license', 'csv', filter, result.rows, result.completed);
    },

    async transactionsCsv(actor: Actor, filter: TransactionExportFilter, out: ExportOutput): Promise<void> {
      const result = await streamCsv(
        out,
        transactionBatches(reads, filter, batchSize),
        createCsvEncoder(transactionCsvColumns),
      );
      await audit(actor, 'transaction', 'csv', filter, result.rows, result.completed);
    },

    async licensesPdf(actor: Actor, filter: LicenseExportFilter, out: ExportOutput): Promise<void> {
      const at = now();
      const report = await PdfReport.create('Licenses', out, { landscape: true, now: at });
      report.heading('Licenses');
      report.line(`Generated ${at.toISOString()}`);
      report.line(`Filters: ${describeFilters(filter)}`);
      report.gap();
      const table = report.beginTable(licensePdfColumns(at));
      let rows = 0;
      let completed = true;
      for await (const batch of licenseBatches(reads, filter, batchSize)) {
        rows += batch.length;
        table.rows(batch);
        if (!(await report.flush())) {
          completed = false;
          break;
        }
      }
      if (completed) {
        table.end();
        report.line(`${rows} license${rows === 1 ? '' : 's'}`);
      }
      await audit(actor, 'license', 'pdf', filter, rows, completed);
      if (completed) await report.end();
    },

    async summaryPdf(actor: Actor, out: ExportOutput): Promise<void> {
      const at = now();
      const stats = await summaryStatistics(summaryReads, reads, at);
      const report = await PdfReport.create('License service summary', out, { now: at });
      report.heading('License service summary');
      report.line(`Generated ${at.toISOString()}`);
      report.line('Filters: none (all data)');
      report.gap();
      const section = (title: string, entries: [string, number | string][]) => {
        report.heading(title, 12);
        for (const [name, value] of entries) report.line(`${name}: ${value}`, 10);
        report.gap(6);
      };
      const l = stats.licenses;
      section('Licenses', [
        ['Total', l.total],
        ['Active', l.active],
        ['Inactive', l.inactive],
        ['Suspended', l.suspended],
        ['Revoked', l.revoked],
        ['Expired', l.expired],
      ]);
      section(
        'Licenses by type',
        ['fixed', 'trial', 'consumption', 'enterprise'].map((type) => [type, stats.licensesByType[type] ?? 0]),
      );
      section('Products and customers', [
        ['Products', stats.products.total],
        ['Active products', stats.products.active],
        ['Customers', stats.customers.total],
      ]);
      const v = stats.validations;
      section('Validations', [
        ['Total', v.total],
        ['Successful', v.success],
        ['Blocked', v.blocked],
        ['Invalid', v.invalid],
        ['Last 30 days', v.last30Days],
      ]);
      section('Transactions', [
        ['Total', stats.transactions.total],
        ...['pending', 'processing', 'completed', 'failed', 'refunded', 'cancelled'].map((status): [string, number] => [
          status,
          stats.transactions.byStatus[status] ?? 0,
        ]),
        ['Completed amount (all currencies)', stats.transactions.completedAmount.toFixed(2)],
      ]);
      report.heading('Licenses per product', 12);
      const table = report.beginTable(productSummaryColumns);
      table.rows(stats.licensesByProduct);
      table.end();
      await audit(actor, 'system', 'pdf', { report: 'summary' }, stats.licensesByProduct.length, true);
      await report.end();
    },
  };
}
