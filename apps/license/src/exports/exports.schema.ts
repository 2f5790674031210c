import { z } from 'zod';
import { isoDate, queryFilterBoolean, uuidString } from '../common/schemas.js';
import { licenseTypes } from '../licenses/licenses.table.js';
import { transactionStatuses } from '../transactions/transactions.table.js';

/**
 * A filter that an empty value leaves out (`product=`): the admin console's export forms are plain
 * GET forms, whose "All" choices and empty date fields are sent as empty strings.
 */
const blankable = <T extends z.ZodType>(schema: T) =>
  z.union([z.literal('').transform(() => undefined), schema]).optional();

export const licenseExportQuerySchema = z.object({
  product: blankable(uuidString()),
  customer: blankable(uuidString()),
  active: blankable(queryFilterBoolean()),
  licenseType: blankable(z.enum(licenseTypes)),
});
export type LicenseExportFilter = z.infer<typeof licenseExportQuerySchema>;

/** An end date without a time (`2026-02-28`) means the whole of that day (UTC), as people read it. */
const endDate = () =>
  z
    .string()
    .refine((value) => !Number.isNaN(Date.parse(value)), 'Must be an ISO 8601 date')
    .transform((value) => new Date(Date.parse(value) + (/^\d{4}-\d{2}-\d{2}$/.test(value) ? 86_400_000 - 1 : 0)));

export const transactionExportQuerySchema = z
  .object({
    customer: blankable(uuidString()),
    status: blankable(z.enum(transactionStatuses)),
    startDate: blankable(isoDate()),
    endDate: blankable(endDate()),
  })
  .refine((query) => !query.startDate || !query.endDate || query.startDate <= query.endDate, {
    message: 'endDate must not be before startDate',
    path: ['endDate'],
  });
export type TransactionExportFilter = z.infer<typeof transactionExportQuerySchema>;
