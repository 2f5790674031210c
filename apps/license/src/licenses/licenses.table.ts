import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { products } from '../products/products.table.js';
import { customers } from '../customers/customers.table.js';
import { entitlements } from '../entitlements/entitlements.table.js';
import { policies } from '../policies/policies.table.js';

import type { ExpirationStrategy, LicenseType } from '../common/license-kinds.js';

export {
  expirationStrategies,
  licenseTypes,
  type ExpirationStrategy,
  type LicenseType,
} from '../common/license-kinds.js';

export const licenses = pgTable(
  'licenses',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** `<PREFIX>-<code>`, case-sensitive. */
    key: text('key').notNull(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'restrict' }),
    customerId: uuid('customer_id').references(() => customers.id, { onDelete: 'set null' }),
    /** Master license of a child (resellers, teams): the child is valid only while its master is. */
    parentId: uuid('parent_id').references((): AnyPgColumn => licenses.id, { onDelete: 'set null' }),
    licenseType: text('license_type').$type<LicenseType>().notNull().default('fixed'),
    active: boolean('active').notNull().default(true),
    suspended: boolean('suspended').notNull().default(false),
    suspendReason: text('suspend_reason'),
    suspendedAt: timestamp('suspended_at', { withTimezone: true }),
    revoked: boolean('revoked').notNull().default(false),
    revokeReason: text('revoke_reason'),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** No expiry when null. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    /** 0 means unlimited. */
    ipLimit: integer('ip_limit').notNull().default(0),
    hwidLimit: integer('hwid_limit').notNull().default(0),
    usedIps: text('used_ips')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    usedHwids: text('used_hwids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Floating seats: a machine not seen for more than this many seconds holds no seat. Null: seats are kept until released. */
    heartbeatSeconds: integer('heartbeat_seconds'),
    /** Days after `expiresAt` during which validation still succeeds (with `graceEndsAt`); 0–90. */
    graceDays: integer('grace_days').notNull().default(0),
    /** `revoke`: expiry refuses (the specification); `maintain`: validation goes on with `expired: true`. */
    expirationStrategy: text('expiration_strategy').$type<ExpirationStrategy>().notNull().default('revoke'),
    /** Floating seats: an offline file borrows its machine's seat for this many hours (0: no files); 0–720. */
    borrowHours: integer('borrow_hours').notNull().default(0),
    /** Key sharing: more distinct addresses in a UTC day than this flags the license (null: its policy's, else never). */
    sharingAddressLimit: integer('sharing_address_limit'),
    /** Consumption licenses: one credit per successful validation. */
    creditsTotal: integer('credits_total').notNull().default(0),
    creditsUsed: integer('credits_used').notNull().default(0),
    /** Trial conversion: when `autoConvert`, a trial becomes `convertToType` (e.g. `fixed`). */
    convertToType: text('convert_to_type').$type<LicenseType>(),
    autoConvert: boolean('auto_convert').notNull().default(false),
    /** Expiry of the full license after conversion, counted from the conversion (days). */
    convertDurationDays: integer('convert_duration_days'),
    convertedAt: timestamp('converted_at', { withTimezone: true }),
    /** Validations blocked by the IP or HWID limit, counted atomically by validation. */
    violationCount: integer('violation_count').notNull().default(0),
    lastValidatedAt: timestamp('last_validated_at', { withTimezone: true }),
    /** Set by the expiry scan once LICENSE_EXPIRED has been emitted for this license. */
    expiredNotifiedAt: timestamp('expired_notified_at', { withTimezone: true }),
    /** The policy it was made from: its entitlements count as the license's at every validation. */
    policyId: uuid('policy_id').references((): AnyPgColumn => policies.id, { onDelete: 'restrict' }),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    uniqueIndex('licenses_key_idx').on(table.key),
    // (…, key): exports page through a product's or a customer's licenses in key order, one index range per batch.
    index('licenses_product_idx').on(table.productId, table.key),
    // The admin lists' order (newest first), overall and within a product: a page reads its rows in order.
    index('licenses_created_idx').on(table.createdAt.desc(), table.id),
    index('licenses_product_created_idx').on(table.productId, table.createdAt.desc(), table.id),
    index('licenses_customer_idx').on(table.customerId, table.key),
    index('licenses_parent_idx').on(table.parentId),
    index('licenses_expires_at_idx').on(table.expiresAt),
    index('licenses_policy_idx')
      .on(table.policyId)
      .where(sql`${table.policyId} IS NOT NULL`),
    check('licenses_type_check', sql`${table.licenseType} in ('fixed', 'trial', 'consumption', 'enterprise')`),
    check('licenses_heartbeat_check', sql`${table.heartbeatSeconds} BETWEEN 10 AND 86400`),
    check('licenses_grace_check', sql`${table.graceDays} BETWEEN 0 AND 90`),
    check('licenses_strategy_check', sql`${table.expirationStrategy} in ('revoke', 'maintain')`),
    check('licenses_borrow_check', sql`${table.borrowHours} BETWEEN 0 AND 720`),
    check(
      'licenses_sharing_address_limit_check',
      sql`${table.sharingAddressLimit} IS NULL OR ${table.sharingAddressLimit} >= 1`,
    ),
    check(
      'licenses_limits_check',
      sql`${table.ipLimit} >= 0 and ${table.hwidLimit} >= 0 and ${table.creditsTotal} >= 0 and ${table.creditsUsed} >= 0`,
    ),
  ],
);

/** A license's own entitlements (its policy's count too). */
export const licenseEntitlements = pgTable(
  'license_entitlements',
  {
    licenseId: uuid('license_id')
      .notNull()
      .references(() => licenses.id, { onDelete: 'cascade' }),
    entitlementId: uuid('entitlement_id')
      .notNull()
      .references(() => entitlements.id, { onDelete: 'restrict' }),
  },
  (table) => [
    primaryKey({ columns: [table.licenseId, table.entitlementId] }),
    index('license_entitlements_entitlement_idx').on(table.entitlementId),
  ],
);

export const memberRoles = ['owner', 'admin', 'member'] as const;

/** Users of an enterprise license and their roles. */
export const licenseMembers = pgTable(
  'license_members',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    licenseId: uuid('license_id')
      .notNull()
      .references(() => licenses.id, { onDelete: 'cascade' }),
    /** Provider user id, when known. */
    userId: text('user_id'),
    email: text('email').notNull(),
    role: text('role').$type<(typeof memberRoles)[number]>().notNull().default('member'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    uniqueIndex('license_members_license_email_idx').on(table.licenseId, table.email),
    check('license_members_role_check', sql`${table.role} in ('owner', 'admin', 'member')`),
  ],
);
