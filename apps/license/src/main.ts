import path from 'node:path';
import { getConfig } from '@app/config';
import { DataFolderInUseError, openDatabase, runMigrations } from '@app/db';
import { startDevIdp } from '@app/dev-idp';
import { createJobQueue } from '@app/events';
import { serveGracefully } from '@app/http';
import { createRedisClient } from '@app/rate-limit';
import { createSettingsStore } from '@app/settings';
import { createApp } from './app.js';
import { createLicenseLogger } from './common/logger.js';
import { licenseSettingsNamespace, licenseSettingsSchema } from './runtime-config/runtime-config.schema.js';

const migrationsFolder = path.resolve(import.meta.dirname, '../drizzle');

async function main(): Promise<void> {
  const config = getConfig();
  const logger = createLicenseLogger({ level: config.LOG_LEVEL });
  const port = config.licensePort;
  const publicUrl = config.LICENSE_PUBLIC_URL ?? `http://localhost:${port}`;

  const database = await openDatabase({
    url: config.LICENSE_DATABASE_URL ?? config.DATABASE_URL,
    dataDir: path.join(config.DATA_DIR, 'license'),
    warn: (message) => logger.warn(message),
  });
  await runMigrations(database.db, migrationsFolder, 'license');

  let oauth;
  let devIdp: Awaited<ReturnType<typeof startDevIdp>> | undefined;
  if (config.OAUTH_CLIENT_ID) {
    oauth = {
      authorizationURL: config.OAUTH_AUTHORIZATION_URL!, tokenURL: config.OAUTH_TOKEN_URL!, userInfoURL: config.OAUTH_USERINFO_URL!,
      clientID: config.OAUTH_CLIENT_ID, clientSecret: config.OAUTH_CLIENT_SECRET ?? '', scope: config.OAUTH_SCOPE,
      idField: config.OAUTH_ID_FIELD, usernameField: config.OAUTH_USERNAME_FIELD,
    };
  } else if (config.NODE_ENV !== 'production' && config.DEV_IDP_ENABLED) {
    devIdp = await startDevIdp({ port: config.DEV_IDP_PORT });
    oauth = devIdp.oauth;
    logger.warn({ url: devIdp.url }, 'NO OAUTH PROVIDER CONFIGURED: signing in through the local DEVELOPMENT identity provider');
  } else {
    throw new Error('OAUTH_CLIENT_ID (and the provider URLs) must be configured');
  }

  const settings = await createSettingsStore({ pool: database.pool, namespace: licenseSettingsNamespace, schema: licenseSettingsSchema });
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
