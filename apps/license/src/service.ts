import path from 'node:path';
import { resolveIdentityProvider } from '@app/auth';
import type { Config } from '@app/config';
import type { EmbeddedServer } from '@app/db';
import { createJobQueue } from '@app/events';
import { runMain, startService, type Logger } from '@app/http';
import { createRedisClient } from '@app/rate-limit';
import { createSettingsStore } from '@app/settings';
import { createApp } from './app.js';
import { databaseDirOf } from './database-dir.js';
import { generatedSecretsTableName } from './common/generated-secrets.table.js';
import { licenseSettingsNamespace, licenseSettingsSchema } from './runtime-config/runtime-config.schema.js';
import { settingsTableName } from './runtime-config/settings.table.js';

const migrationsFolder = path.resolve(import.meta.dirname, '../drizzle');

/**
 * Runs the license service; prints why and exits with 1 when the start fails. `embedded` is the
 * embedded database when main.ts has started it already (in databaseDirOf).
 */
export function runLicenseService(processConfig: Config, logger: Logger, embedded?: Promise<EmbeddedServer>): void {
  runMain(() => startLicenseService(processConfig, { logger, embedded }));
}

/** Starts the license service through `startService`, as the paste service starts. */
export function startLicenseService(
  processConfig: Config,
  options: { logger: Logger; embedded?: Promise<EmbeddedServer>; port?: number; handleSignals?: boolean },
) {
  const { logger } = options;
  const port = options.port ?? processConfig.licensePort;
  const publicUrl = processConfig.LICENSE_PUBLIC_URL ?? `http://localhost:${port}`;
  return startService({
    name: 'license',
    config: processConfig,
    logger,
    port,
    portVariable: 'LICENSE_PORT',
    handleSignals: options.handleSignals,
    database: {
      url: processConfig.LICENSE_DATABASE_URL ?? processConfig.DATABASE_URL,
      replicaUrl: processConfig.LICENSE_DATABASE_REPLICA_URL ?? processConfig.DATABASE_REPLICA_URL,
      migrationUrl: processConfig.LICENSE_DATABASE_MIGRATION_URL ?? processConfig.DATABASE_MIGRATION_URL,
      poolMode: processConfig.LICENSE_DATABASE_POOL_MODE ?? processConfig.DATABASE_POOL_MODE,
      dataDir: databaseDirOf(processConfig),
      embedded: options.embedded,
    },
    migrationsFolder,
    generatedSecretsTable: generatedSecretsTableName,
    open: {
      identityProvider: () => resolveIdentityProvider(processConfig, logger, publicUrl),
      settings: (pool) =>
        createSettingsStore({
          pool,
          table: settingsTableName,
          namespace: licenseSettingsNamespace,
          schema: licenseSettingsSchema,
        }),
      redis: (url) => createRedisClient(url),
      // A job schema of its own: the paste service may share this database (a lone DATABASE_URL).
      jobQueue: (pool) => createJobQueue({ pool, logger, schema: 'pgboss_license' }),
    },
    createApp: ({ config, database, oauth, settings, redis, jobs }) =>
      createApp({ config, database, logger, settings, oauth, publicUrl, jobs, redis }),
  });
}
