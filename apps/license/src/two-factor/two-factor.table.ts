import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Two-factor state of an admin, keyed by the provider user id the session carries (the same id
 * as `admins.user_id`). Secrets are stored encrypted (AES-256-GCM, key derived from
 * SESSION_SECRET), so a database dump alone does not give the codes away.
 */
export const adminTwoFactor = pgTable('admin_two_factor', {
  userId: text('user_id').primaryKey(),
  enabled: boolean('enabled').notNull().default(false),
  /** The confirmed secret; set by enable. */
  secret: text('secret'),
  /** The secret handed out by setup and not yet confirmed by a valid token. */
  pendingSecret: text('pending_secret'),
  enabledAt: timestamp('enabled_at', { withTimezone: true }),
  /** The TOTP time step of the last accepted verify: a code is never accepted twice. */
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  /** Code attempts in the current window; counted before checking, so parallel guesses are counted too. */
  attempts: integer('attempts').notNull().default(0),
  attemptsWindowStart: timestamp('attempts_window_start', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
  updatedAt: timestamp('updated_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/** One-time backup codes, bcrypt-hashed; `used_at` is set when a code is spent. */
export const adminBackupCodes = pgTable(
  'admin_backup_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: text('user_id')
      .notNull()
      .references(() => adminTwoFactor.userId, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [index('admin_backup_codes_user_idx').on(table.userId)],
);
