import { z } from 'zod';
import { storageSchema } from '@app/storage/schema';
import { envBoolean, envInt, envList, envPoolMode, envPort, envUrl, optionalString } from './env-types.js';

/** Comma-separated names, each one of `names` (a typo fails at start-up instead of silently sending nothing). */
const envChoices = <T extends string>(names: readonly [T, ...T[]]) => envList().pipe(z.array(z.enum(names)));
const notificationChannels = ['email', 'sms', 'telegram'] as const;
const webhookEvents = [
  'LICENSE_EXPIRED',
  'NEW_REQUEST_BLOCKED',
  'LICENSE_CREATED',
  'LICENSE_REVOKED',
  'ANOMALY_DETECTED',
  'AUTOMATED_ACTION',
  'MACHINE_ACTIVATED',
  'MACHINE_DEACTIVATED',
  'MACHINE_LEASE_EXPIRED',
  'LICENSE_SHARING_SUSPECTED',
] as const;

export const licenseSchema = {
  LICENSE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PORT: envPort(3000),
  LICENSE_PUBLIC_URL: envUrl(),
  LICENSE_DATABASE_URL: envUrl(),
  /** The license service's replica of LICENSE_DATABASE_URL (over DATABASE_REPLICA_URL). */
  LICENSE_DATABASE_REPLICA_URL: envUrl(),
  /** The license service's direct URL for migrations (over DATABASE_MIGRATION_URL). */
  LICENSE_DATABASE_MIGRATION_URL: envUrl(),
  /** How LICENSE_DATABASE_URL reaches PostgreSQL (over DATABASE_POOL_MODE). */
  LICENSE_DATABASE_POOL_MODE: envPoolMode(),
  ADMIN_IDS: envList(),
  SESSION_TTL_HOURS: envInt(24, 1, 24 * 365),
  PANIC_MODE: envBoolean(false),
  RATE_LIMIT_ENABLED: envBoolean(true),
  RATE_LIMIT_WINDOW_MS: envInt(15 * 60 * 1000, 1000),
  RATE_LIMIT_MAX: envInt(200, 1),
  JWT_SECRET: optionalString(),
  JWT_PUBLIC_KEY: optionalString(),
  /** PEM private key matching JWT_PUBLIC_KEY, so POST /api/auth/token can issue RS256/EdDSA tokens. */
  JWT_PRIVATE_KEY: optionalString(),
  /** Lifetime of tokens issued by POST /api/auth/token. */
  JWT_TTL_SECONDS: envInt(3600, 60, 30 * 24 * 3600),
  // Webhooks, notifications, marketplace and scheduled scans (issue 5).
  WEBHOOK_URL: envUrl(),
  WEBHOOK_EVENTS: envChoices(webhookEvents),
  WEBHOOK_TIMEOUT_MS: envInt(5000, 1),
  /** Retries after the first attempt; fewer than the 32 that span 24 hours are raised to 32. */
  WEBHOOK_RETRIES: envInt(32, 0, 200),
  WEBHOOK_SECRET: optionalString(),
  /** Let webhooks reach loopback, private, link-local ... addresses (local receivers, tests). */
  WEBHOOK_ALLOW_PRIVATE: envBoolean(false),
  /** Webhook attempts in flight at once per instance. */
  WEBHOOK_CONCURRENCY: envInt(16, 1, 256),
  SMTP_HOST: optionalString(),
  SMTP_PORT: envInt(587, 0, 65535),
  SMTP_SECURE: envBoolean(false),
  SMTP_USER: optionalString(),
  SMTP_PASS: optionalString(),
  SMTP_FROM: z.string().default('License Service <licenses@localhost>'),
  /** Let an SMTP host set in the admin console be a loopback, private, link-local ... address (SMTP_HOST itself always may). */
  SMTP_ALLOW_PRIVATE: envBoolean(false),
  TWILIO_ACCOUNT_SID: optionalString(),
  TWILIO_AUTH_TOKEN: optionalString(),
  TWILIO_FROM: optionalString(),
  TWILIO_BASE_URL: envUrl(),
  TELEGRAM_BOT_TOKEN: optionalString(),
  TELEGRAM_CHAT_ID: optionalString(),
  TELEGRAM_API_URL: envUrl(),
  NOTIFY_EMAIL_TO: envList(),
  NOTIFY_SMS_TO: envList(),
  NOTIFY_LICENSE_EXPIRING: envChoices(notificationChannels),
  NOTIFY_LICENSE_VIOLATION: envChoices(notificationChannels),
  NOTIFY_ANOMALY: envChoices(notificationChannels),
  NOTIFY_SECURITY: envChoices(notificationChannels),
  NOTIFY_TRANSACTION: envChoices(notificationChannels),
  NOTIFY_AUTOMATED_ACTION: envChoices(notificationChannels),
  NOTIFY_CUSTOM: envChoices(notificationChannels),
  STRIPE_WEBHOOK_SECRET: optionalString(),
  EXPIRY_WARNING_DAYS: envInt(7, 0, 365),
  ANOMALY_MAX_IPS: envInt(10, 1),
  ANOMALY_WINDOW_MINUTES: envInt(60, 1, 7 * 24 * 60),
  ANOMALY_MAX_FAILURES: envInt(20, 1),
  /** Days raw usage records are kept (wave 4); the daily rollups are kept forever. */
  USAGE_RETENTION_DAYS: envInt(90, 1, 36_500),
  // Two-factor sign-in of admins and exports (issue 5).
  TWO_FACTOR_REQUIRED: envBoolean(false),
  TWO_FACTOR_DISABLE_PASSWORD: optionalString(),
  TWO_FACTOR_ISSUER: z.string().default('License Service'),
  TWO_FACTOR_MAX_ATTEMPTS: envInt(5, 1, 1000),
  TWO_FACTOR_WINDOW_MINUTES: envInt(15, 1, 24 * 60),
  EXPORT_BATCH_SIZE: envInt(1000, 10, 100_000),
  // Customer portal and offline license files.
  /** Releases of an IP or hardware id a customer may make per license in any 24 hours. */
  CUSTOMER_RELEASES_PER_DAY: envInt(3, 0, 1000),
  /** Days an offline license file stays valid (never past the license's expiry). */
  OFFLINE_FILE_DAYS: envInt(30, 1, 3650),
  /**
   * Where release artifacts keep their bytes (decisions.md wave 4, "Storage"; shared with paste
   * attachments): STORAGE_URL (`file:///path`, default DATA_DIR/objects, or `s3://BUCKET[/prefix]`)
   * and the AWS SDK's variables.
   */
  ...storageSchema,
};
