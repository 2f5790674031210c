import path from 'node:path';
import { resolveIdentityProvider } from '@app/auth';
import { describeSessionSecret, getConfig, resolveSessionSecret } from '@app/config';
import { DataFolderInUseError, openDatabase, runMigrations } from '@app/db';
import { createJobQueue } from '@app/events';
import { serveGracefully } from '@app/http';
import { createRedisClient } from '@app/rate-limit';
import { createSettingsStore } from '@app/settings';
import { createApp } from './app.js';
import { createLicenseLogger } from './common/logger.js';
import { licenseSettingsNamespace, licenseSettingsSchema } from './runtime-config/runtime-config.schema.js';
import { settingsTableName } from './runtime-config/settings.table.js';

const migrationsFolder = path.resolve(import.meta.dirname, '../drizzle');

async function main(): Promise<void> {
  const processConfig = getConfig();
  const logger = createLicenseLogger({ level: processConfig.LOG_LEVEL });
  const sessionSecret = resolveSessionSecret(processConfig, 'license');
  const sessionSecretNote = describeSessionSecret(sessionSecret);
  if (sessionSecretNote) logger.info({ file: sessionSecret.file }, sessionSecretNote);
  const config = { ...processConfig, SESSION_SECRET: sessionSecret.secret };
  const port = config.licensePort;
  const publicUrl = config.LICENSE_PUBLIC_URL ?? `http://localhost:${port}`;

  const database = await openDatabase({
    url: config.LICENSE_DATABASE_URL ?? config.DATABASE_URL,
    dataDir: path.join(config.DATA_DIR, 'license'),
    warn: (message) => logger.warn(message),
  });
  await runMigrations(database.db, migrationsFolder, 'license');

  const { oauth, devIdp } = await resolveIdentityProvider(config, logger, publicUrl);

  const settings = await createSettingsStore({ pool: database.pool, table: settingsTableName, namespace: licenseSettingsNamespace, schema: licenseSettingsSchema });
  // A job schema of its own: the paste service may share this database (a lone DATABASE_URL).
  const jobs = await createJobQueue({ pool: database.pool, logger, schema: 'pgboss_license' });
  const redis = config.REDIS_URL ? createRedisClient(config.REDIS_URL) : undefined;
  const licenseApp = await createApp({ config, database, logger, settings, oauth, publicUrl, jobs, redis });

  await serveGracefully(licenseApp.app, {
    port, logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, name: 'license service',
    async onClosed() {
      await licenseApp.close();
      await jobs.stop();
      await settings.close();
      redis?.disconnect();
      await devIdp?.stop();
      await database.close();
    },
  });
}

main().catch((error) => {
  // Another process holds the data folder: its one line says all there is to say.
  console.error(error instanceof DataFolderInUseError ? error.message : error);
  process.exit(1);
});
