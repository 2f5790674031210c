import { z } from 'zod';
import { isoDate, queryFilterBoolean, uuidString } from '../common/schemas.js';
import { licenseTypes } from '../licenses/licenses.table.js';
import { transactionStatuses } from '../transactions/transactions.table.js';

export const licenseExportQuerySchema = z.object({
  product: uuidString().optional(),
  customer: uuidString().optional(),
  active: queryFilterBoolean(),
  licenseType: z.enum(licenseTypes).optional(),
});
export type LicenseExportFilter = z.infer<typeof licenseExportQuerySchema>;

/** An end date without a time (`2026-02-28`) means the whole of that day (UTC), as people read it. */
const endDate = () => z.string()
  .refine((value) => !Number.isNaN(Date.parse(value)), 'Must be an ISO 8601 date')
  .transform((value) => new Date(Date.parse(value) + (/^\d{4}-\d{2}-\d{2}$/.test(value) ? 86_400_000 - 1 : 0)));

export const transactionExportQuerySchema = z.object({
  customer: uuidString().optional(),
  status: z.enum(transactionStatuses).optional(),
  startDate: isoDate().optional(),
  endDate: endDate().optional(),
}).refine((query) => !query.startDate || !query.endDate || query.startDate <= query.endDate, {
  message: 'endDate must not be before startDate', path: ['endDate'],
});
export type TransactionExportFilter = z.infer<typeof transactionExportQuerySchema>;
