import { z } from 'zod';
import { envBoolean, envInt, envPoolMode, envPort, envUrl, optionalString } from './env-types.js';

export const sharedSchema = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: envUrl(),
  /**
   * A streaming replica of DATABASE_URL's server: pages, lists, statistics and exports read from
   * it while it is up and at most 10 s behind; everything else uses the primary.
   */
  DATABASE_REPLICA_URL: envUrl(),
  /**
   * A direct connection to DATABASE_URL's database for the migrations, when DATABASE_URL goes
   * through a pooler such as PgBouncer (docs/deploy.md, "Behind PgBouncer").
   */
  DATABASE_MIGRATION_URL: envUrl(),
  /**
   * `transaction` when DATABASE_URL (and the replica's URL) go through a pooler in transaction
   * mode (PgBouncer's `pool_mode = transaction`): every statement is then sent unnamed. Unset or
   * `session`: a direct connection or a session pooler.
   */
  DATABASE_POOL_MODE: envPoolMode(),
  /**
   * The embedded database's page cache (PostgreSQL's shared_buffers), held for good once filled:
   * a size like `16MB` or `256MB`. More serves a large database from memory.
   */
  EMBEDDED_SHARED_BUFFERS: z
    .string()
    .regex(/^[1-9]\d{0,5}(kB|MB|GB)$/, 'Must be a size such as 16MB, 512kB or 1GB')
    .default('16MB'),
  REDIS_URL: envUrl(),
  /** Express's `trust proxy`: `false`, `true`, a hop count, or a list of addresses. */
  TRUST_PROXY: z.string().default('false'),
  SESSION_SECRET: optionalString(),
  /** New anonymous sessions (a sign-in started, a first CSRF token) per client address per minute; then 429. */
  SESSION_START_LIMIT: envInt(30, 1),
  OAUTH_AUTHORIZATION_URL: envUrl(),
  OAUTH_TOKEN_URL: envUrl(),
  OAUTH_USERINFO_URL: envUrl(),
  OAUTH_CLIENT_ID: optionalString(),
  OAUTH_CLIENT_SECRET: optionalString(),
  OAUTH_SCOPE: z.string().default('openid profile'),
  OAUTH_ID_FIELD: z.string().default('id'),
  OAUTH_USERNAME_FIELD: z.string().default('username'),
  DEV_IDP_PORT: envPort(9000),
  /** Interface the stand-alone development provider listens on (0.0.0.0 in a container). */
  DEV_IDP_HOST: z.string().default('127.0.0.1'),
  /** Base URL browsers reach the stand-alone provider at, when it differs from its own (docker compose). */
  DEV_IDP_PUBLIC_URL: envUrl(),
  DEV_IDP_ENABLED: envBoolean(true),
  SHUTDOWN_TIMEOUT_MS: envInt(10_000, 0),
  /** At shutdown, how long /readyz answers 503 (requests still served) before the port closes: a balancer's health checks see it first. */
  SHUTDOWN_DRAIN_MS: envInt(0, 0),
  /** Migrate the database and exit (a Kubernetes migration Job, a release step). */
  MIGRATE_ONLY: envBoolean(false),
};
