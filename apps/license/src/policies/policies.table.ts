import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { entitlements } from '../entitlements/entitlements.table.js';
import { products } from '../products/products.table.js';

/**
 * A product's license template. A license made from it takes every field it does not set from
 * here (copied then); a null field sets nothing. Its entitlements are read at each validation.
 */
export const policies = pgTable(
  'policies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    // licenses.table.ts's LicenseType (not imported: licenses reference policies).
    licenseType: text('license_type').$type<'fixed' | 'trial' | 'consumption' | 'enterprise'>(),
    /** A license made from it expires this many days after it was made. */
    durationDays: integer('duration_days'),
    ipLimit: integer('ip_limit'),
    hwidLimit: integer('hwid_limit'),
    heartbeatSeconds: integer('heartbeat_seconds'),
    credits: integer('credits'),
    graceDays: integer('grace_days'),
    // licenses.table.ts's ExpirationStrategy (not imported, as above).
    expirationStrategy: text('expiration_strategy').$type<'revoke' | 'maintain'>(),
    borrowHours: integer('borrow_hours'),
    /** Key sharing: more distinct addresses in a UTC day than this flags a license of the policy (its own null). */
    sharingAddressLimit: integer('sharing_address_limit'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    index('policies_product_idx').on(table.productId, table.createdAt.desc()),
    check('policies_type_check', sql`${table.licenseType} in ('fixed', 'trial', 'consumption', 'enterprise')`),
    check('policies_heartbeat_check', sql`${table.heartbeatSeconds} BETWEEN 10 AND 86400`),
    check('policies_grace_check', sql`${table.graceDays} BETWEEN 0 AND 90`),
    check('policies_strategy_check', sql`${table.expirationStrategy} in ('revoke', 'maintain')`),
    check('policies_borrow_check', sql`${table.borrowHours} BETWEEN 0 AND 720`),
    check(
      'policies_sharing_address_limit_check',
      sql`${table.sharingAddressLimit} IS NULL OR ${table.sharingAddressLimit} >= 1`,
    ),
    check(
      'policies_limits_check',
      sql`${table.durationDays} >= 1 and ${table.ipLimit} >= 0 and ${table.hwidLimit} >= 0 and ${table.credits} >= 0`,
    ),
  ],
);

/** The entitlements a policy grants to every license that names it. */
export const policyEntitlements = pgTable(
  'policy_entitlements',
  {
    policyId: uuid('policy_id')
      .notNull()
      .references(() => policies.id, { onDelete: 'cascade' }),
    entitlementId: uuid('entitlement_id')
      .notNull()
      .references(() => entitlements.id, { onDelete: 'restrict' }),
  },
  (table) => [
    primaryKey({ columns: [table.policyId, table.entitlementId] }),
    index('policy_entitlements_entitlement_idx').on(table.entitlementId),
  ],
);
