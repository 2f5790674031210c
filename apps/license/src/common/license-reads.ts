import type { Queryable } from '@app/db';

// What other features may read of the licenses tables, as a type: products, customers, the
// dashboard and the exports get the object (licenses/license-reads.ts) passed in from app.ts and
// name only this, so none of them imports the licenses feature that references their tables.

/** Licenses of one product and type, counted at one instant. */
export interface LicenseCountRow {
  productId: string;
  licenseType: string;
  total: number;
  /** Active, not suspended, not revoked, not expired. */
  active: number;
  /** Not active, not suspended, not revoked. */
  inactive: number;
  suspended: number;
  suspendedUnrevoked: number;
  revoked: number;
  /** expires_at <= now, whatever the other flags. */
  expired: number;
  expiredUnrevoked: number;
}
export type LicenseTotals = Omit<LicenseCountRow, 'productId' | 'licenseType'>;

/** Each read takes the database to read from, so a caller can read from the replica. */
export interface LicenseReads {
  /** License counts per product and type at `now` (`productId` narrows to one product). */
  countsAt(db: Queryable, now: Date, productId?: string): Promise<LicenseCountRow[]>;
  productHasLicenses(db: Queryable, productId: string): Promise<boolean>;
  countsByCustomer(db: Queryable, customerIds: string[]): Promise<Map<string, number>>;
  /** Adds up rows of countsAt, grouped by `key` (all of them under '' without one). */
  sum(rows: LicenseCountRow[], key?: (row: LicenseCountRow) => string): Map<string, LicenseTotals>;
  total(rows: LicenseCountRow[]): LicenseTotals;
}
