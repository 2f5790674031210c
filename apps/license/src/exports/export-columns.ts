import type { CsvColumn } from './csv.js';
import type { PdfColumn } from './pdf.js';
import type { LicenseExportRow, TransactionExportRow } from './exports.repository.js';

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : '');

/** The state a person reads: revoked, then suspended, expired, not active, active (validation's order). */
export function licenseStatus(row: LicenseExportRow, now: Date): string {
  if (row.revoked) return 'revoked';
  if (row.suspended) return 'suspended';
  if (row.expiresAt && new Date(row.expiresAt) <= now) return 'expired';
  return row.active ? 'active' : 'inactive';
}

export const licenseCsvColumns = (now: Date): CsvColumn<LicenseExportRow>[] => [
  { label: '_id', value: (row) => row.id },
  { label: 'key', value: (row) => row.key },
  { label: 'productId', value: (row) => row.productId },
  { label: 'product', value: (row) => row.productName },
  { label: 'customerId', value: (row) => row.customerId ?? '' },
  { label: 'customer', value: (row) => row.customerName ?? '' },
  { label: 'customerEmail', value: (row) => row.customerEmail ?? '' },
  { label: 'licenseType', value: (row) => row.licenseType },
  { label: 'status', value: (row) => licenseStatus(row, now) },
  { label: 'active', value: (row) => row.active },
  { label: 'suspended', value: (row) => row.suspended },
  { label: 'revoked', value: (row) => row.revoked },
  { label: 'expiresAt', value: (row) => iso(row.expiresAt) },
  { label: 'ipLimit', value: (row) => row.ipLimit },
  { label: 'hwidLimit', value: (row) => row.hwidLimit },
  { label: 'usedIps', value: (row) => row.usedIps.join(' ') },
  { label: 'usedHwids', value: (row) => row.usedHwids.join(' ') },
  { label: 'creditsTotal', value: (row) => row.creditsTotal },
  { label: 'creditsUsed', value: (row) => row.creditsUsed },
  { label: 'parentId', value: (row) => row.parentId ?? '' },
  { label: 'createdAt', value: (row) => iso(row.createdAt) },
];

const limit = (used: number, max: number) => `${used}/${max === 0 ? '∞' : max}`;

export const licensePdfColumns = (now: Date): PdfColumn<LicenseExportRow>[] => [
  { label: 'Key', width: 200, value: (row) => row.key, overflow: 'shrink' },
  { label: 'Product', width: 95, value: (row) => row.productName },
  { label: 'Customer', width: 115, value: (row) => row.customerName ?? '' },
  { label: 'Type', width: 60, value: (row) => row.licenseType },
  { label: 'Status', width: 55, value: (row) => licenseStatus(row, now) },
  { label: 'Expires', width: 80, value: (row) => (row.expiresAt ? iso(row.expiresAt).slice(0, 10) : 'never') },
  { label: 'IPs', width: 45, value: (row) => limit(row.usedIps.length, row.ipLimit), align: 'right' },
  { label: 'HWIDs', width: 45, value: (row) => limit(row.usedHwids.length, row.hwidLimit), align: 'right' },
  {
    label: 'Credits',
    width: 65,
    value: (row) =>
      row.licenseType === 'consumption' ? `${row.creditsTotal - row.creditsUsed}/${row.creditsTotal}` : '',
    align: 'right',
  },
];

export const transactionCsvColumns: CsvColumn<TransactionExportRow>[] = [
  { label: '_id', value: (row) => row.id },
  { label: 'createdAt', value: (row) => iso(row.createdAt) },
  { label: 'status', value: (row) => row.status },
  { label: 'amount', value: (row) => row.amount },
  { label: 'currency', value: (row) => row.currency },
  { label: 'customerId', value: (row) => row.customerId ?? '' },
  { label: 'customer', value: (row) => row.customerName ?? '' },
  { label: 'customerEmail', value: (row) => row.customerEmail ?? '' },
  { label: 'licenseId', value: (row) => row.licenseId ?? '' },
  { label: 'licenseKey', value: (row) => row.licenseKey ?? '' },
  { label: 'productId', value: (row) => row.productId ?? '' },
  { label: 'product', value: (row) => row.productName ?? '' },
  { label: 'externalId', value: (row) => row.externalId ?? '' },
];

export const productSummaryColumns: PdfColumn<{ name: string; prefix: string; total: number; active: number }>[] = [
  { label: 'Product', width: 230, value: (row) => row.name },
  { label: 'Prefix', width: 110, value: (row) => row.prefix },
  { label: 'Licenses', width: 90, value: (row) => String(row.total), align: 'right' },
  { label: 'Active', width: 90, value: (row) => String(row.active), align: 'right' },
];
