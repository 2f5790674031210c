import path from 'node:path';
import type { Config } from '@app/config';
import type { EmbeddedServer } from '@app/db';
import { resolveIdentityProvider } from '@app/auth';
import { createJobQueue } from '@app/events';
import { runMain, startService, type Logger } from '@app/http';
import { createRedisClient } from '@app/rate-limit';
import { createSettingsStore } from '@app/settings';
import { createApp, migrationsFolder } from './app.js';
import { databaseDirOf } from './database-dir.js';
import { generatedSecretsTableName } from './common/generated-secrets.table.js';
import { pasteSettingsSchema } from './settings/settings.schema.js';
import { settingsTableName } from './settings/settings.table.js';

export function uploadDirOf(config: Config): string {
  return path.resolve(config.PASTE_UPLOAD_DIR ?? path.join(config.DATA_DIR, 'paste-uploads', 'images'));
}

/**
 * Runs the paste service; prints why and exits with 1 when the start fails. `embedded` is the
 * embedded database when main.ts has started it already (in databaseDirOf).
 */
export function runPasteService(processConfig: Config, logger: Logger, embedded?: Promise<EmbeddedServer>): void {
  runMain(() => startPasteService(processConfig, { logger, embedded }));
}

/**
 * Starts the paste service through `startService`, as the license service starts. `main.ts`
 * calls it with the process configuration; the benchmark calls it with its own.
 */
export function startPasteService(
  processConfig: Config,
  options: { logger: Logger; embedded?: Promise<EmbeddedServer>; port?: number; handleSignals?: boolean },
) {
  const { logger } = options;
  const port = options.port ?? processConfig.PASTE_PORT;
  const publicUrl = (processConfig.PASTE_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return startService({
    name: 'paste',
    config: processConfig,
    logger,
    port,
    portVariable: 'PASTE_PORT',
    handleSignals: options.handleSignals,
    database: {
      url: processConfig.PASTE_DATABASE_URL ?? processConfig.DATABASE_URL,
      replicaUrl: processConfig.PASTE_DATABASE_REPLICA_URL ?? processConfig.DATABASE_REPLICA_URL,
      migrationUrl: processConfig.PASTE_DATABASE_MIGRATION_URL ?? processConfig.DATABASE_MIGRATION_URL,
      poolMode: processConfig.PASTE_DATABASE_POOL_MODE ?? processConfig.DATABASE_POOL_MODE,
      dataDir: databaseDirOf(processConfig),
      embedded: options.embedded,
    },
    migrationsFolder,
    generatedSecretsTable: generatedSecretsTableName,
    open: {
      identityProvider: () => resolveIdentityProvider(processConfig, logger, publicUrl),
      settings: (pool) =>
        createSettingsStore({ pool, table: settingsTableName, namespace: 'paste', schema: pasteSettingsSchema }),
      redis: (url) => createRedisClient(url),
      // A job schema of its own: the license service may share this database (a lone DATABASE_URL).
      jobQueue: (pool) => createJobQueue({ pool, logger, schema: 'pgboss_paste' }),
    },
    // On a database server the uploads live in the database: any number of instances share
    // them, and nothing is written to the data folder.
    createApp: ({ config, database, oauth, settings, redis, jobs }) =>
      createApp({
        config,
        database,
        logger,
        settings,
        oauth,
        publicUrl,
        uploadDir: uploadDirOf(config),
        uploadsIn: database.mode === 'server' ? 'database' : 'folder',
        redis,
        jobs,
      }),
  });
}
