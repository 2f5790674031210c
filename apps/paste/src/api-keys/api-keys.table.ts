import { pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const apiKeysTable = pgTable('api_keys', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  /** SHA-256 of the key: keys are 256 random bits, so a fast hash is safe and one indexed lookup suffices. */
  keyHash: text('key_hash').notNull().unique(),
  /** The first characters of the key, shown in the list so the owner can tell keys apart. */
  prefix: text('prefix').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
});
