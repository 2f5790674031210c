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

export const transactionExportQuerySchema = z.object({
  customer: uuidString().optional(),
  status: z.enum(transactionStatuses).optional(),
  startDate: isoDate().optional(),
  endDate: isoDate().optional(),
}).refine((query) => !query.startDate || !query.endDate || query.startDate <= query.endDate, {
  message: 'endDate must not be before startDate', path: ['endDate'],
});
export type TransactionExportFilter = z.infer<typeof transactionExportQuerySchema>;
