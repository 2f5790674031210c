import { sql } from 'drizzle-orm';
import { check, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The service's Ed25519 keys that sign validation answers and offline files. The one without
 * `retiredAt` is the current key (one per algorithm); the others are kept for their public key,
 * which clients still need to verify what those keys signed. The private key is sealed
 * (`privateKeySealed`); `privateKeyPem` is only the clear key of an install from before the
 * sealing, which the service seals at start-up (0019_signing_key_rotation.sql).
 */
export const signingKeys = pgTable(
  'signing_keys',
  {
    id: text('id').primaryKey(),
    /** First 16 hex digits of the SHA-256 of the raw public key; answers carry it as X-License-Key-Id. */
    kid: text('kid').notNull().unique('signing_keys_kid_unique'),
    algorithm: text('algorithm').notNull(),
    publicKeyPem: text('public_key_pem').notNull(),
    privateKeyPem: text('private_key_pem'),
    privateKeySealed: text('private_key_sealed'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('signing_keys_one_current')
      .on(table.algorithm)
      .where(sql`${table.retiredAt} IS NULL`),
    check(
      'signing_keys_private_key_check',
      sql`(${table.privateKeyPem} IS NULL OR ${table.privateKeySealed} IS NULL) AND (${table.retiredAt} IS NOT NULL OR ${table.privateKeyPem} IS NOT NULL OR ${table.privateKeySealed} IS NOT NULL)`,
    ),
  ],
);
