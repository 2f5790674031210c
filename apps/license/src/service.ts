import path from 'node:path';
import { resolveIdentityProvider } from '@app/auth';
import { describeSessionSecret, resolveSessionSecret, resolveSessionSecretInDatabase, type Config } from '@app/config';
import { keepGeneratedSecret, openDatabase, runMigrations, type EmbeddedServer } from '@app/db';
import { createJobQueue } from '@app/events';
import { runMain, serveGracefully, startUp, type Logger } from '@app/http';
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
  runMain(() => main(processConfig, logger, embedded));
}

async function main(processConfig: Config, logger: Logger, embedded?: Promise<EmbeddedServer>): Promise<void> {
  const port = processConfig.licensePort;
  const publicUrl = processConfig.LICENSE_PUBLIC_URL ?? `http://localhost:${port}`;

  // What start-up opens is closed last first at shutdown, and when start-up fails half-way.
  await startUp(logger, async (opened) => {
    // A start that fails before the database is opened below still closes the one already started.
    opened.push(() =>
      embedded?.then(
        (server) => server.close(),
        () => undefined,
      ),
    );
    // The identity provider first: a development provider whose port is taken stops the start
    // before the database is opened.
    const { oauth, devIdp } = await resolveIdentityProvider(processConfig, logger, publicUrl);
    opened.push(() => devIdp?.stop());
    const database = await openDatabase({
      url: processConfig.LICENSE_DATABASE_URL ?? processConfig.DATABASE_URL,
      dataDir: databaseDirOf(processConfig),
      started: embedded,
      sharedBuffers: processConfig.EMBEDDED_SHARED_BUFFERS,
      warn: (message) => logger.warn(message),
      replicaUrl: processConfig.LICENSE_DATABASE_REPLICA_URL ?? processConfig.DATABASE_REPLICA_URL,
      replicaLog: (message, level) => logger[level](message),
      migrationUrl: processConfig.LICENSE_DATABASE_MIGRATION_URL ?? processConfig.DATABASE_MIGRATION_URL,
      poolMode: processConfig.LICENSE_DATABASE_POOL_MODE ?? processConfig.DATABASE_POOL_MODE,
    });
    opened.push(() => database.close());
    await runMigrations(database.migrationDb, migrationsFolder, 'license');
    if (processConfig.MIGRATE_ONLY) {
      logger.info('MIGRATE_ONLY is set: the database is migrated; exiting');
      await opened.closeAll();
      process.exit(0);
    }
    // On a database server the generated secret lives in the database: any number of instances
    // share it, and nothing is written to the data folder.
    const sessionSecret =
      database.mode === 'server'
        ? await resolveSessionSecretInDatabase(processConfig, (generate) =>
            keepGeneratedSecret(database.pool, generatedSecretsTableName, 'session-secret', generate),
          )
        : resolveSessionSecret(processConfig, 'license');
    const sessionSecretNote = describeSessionSecret(sessionSecret);
    if (sessionSecretNote) logger.info({ file: sessionSecret.file }, sessionSecretNote);
    const config = { ...processConfig, SESSION_SECRET: sessionSecret.secret };
    const settings = await createSettingsStore({
      pool: database.pool,
      table: settingsTableName,
      namespace: licenseSettingsNamespace,
      schema: licenseSettingsSchema,
    });
    opened.push(() => settings.close());
    const redis = config.REDIS_URL ? createRedisClient(config.REDIS_URL) : undefined;
    opened.push(() => redis?.disconnect());
    // A job schema of its own: the paste service may share this database (a lone DATABASE_URL).
    const jobs = await createJobQueue({ pool: database.pool, logger, schema: 'pgboss_license' });
    opened.push(() => jobs.stop());
    const licenseApp = await createApp({ config, database, logger, settings, oauth, publicUrl, jobs, redis });
    opened.push(() => licenseApp.close());

    await serveGracefully(licenseApp.app, {
      port,
      portVariable: 'LICENSE_PORT',
      logger,
      timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      drainMs: config.SHUTDOWN_DRAIN_MS,
      name: 'license service',
      onClosed: opened.closeAll,
    });
  });
}
