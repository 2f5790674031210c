import { iso } from '../common/schemas.js';
import type { CustomerRow } from './customers.repository.js';

/** The Customer resource of the specification; `licenseCount` where the query counted them. */
export const customerJson = (row: CustomerRow) => ({
  _id: row.id,
  name: row.name,
  email: row.email,
  userId: row.user_id,
  ...(row.license_count !== undefined ? { licenseCount: row.license_count } : {}),
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
});
export type CustomerJson = ReturnType<typeof customerJson>;
