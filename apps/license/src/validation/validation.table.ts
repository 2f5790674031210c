import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** The service's Ed25519 key pair that signs validate responses; generated on first start. */
export const signingKeys = pgTable('signing_keys', {
  id: text('id').primaryKey(),
  algorithm: text('algorithm').notNull(),
  publicKeyPem: text('public_key_pem').notNull(),
  privateKeyPem: text('private_key_pem').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});
