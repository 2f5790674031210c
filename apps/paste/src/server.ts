import path from 'node:path';
import { describeSessionSecret, resolveSessionSecret, resolveSessionSecretInDatabase, type Config } from '@app/config';
import { keepGeneratedSecret, openDatabase, runMigrations, type Database, type EmbeddedServer } from '@app/db';
import { resolveIdentityProvider } from '@app/auth';
import { createJobQueue, type JobQueue } from '@app/events';
import { createLogger, serveGracefully, startUp, type Logger, type RunningServer } from '@app/http';
import { createRedisClient, type Redis } from '@app/rate-limit';
import { createSettingsStore, type SettingsStore } from '@app/settings';
import { createApp, migrationsFolder, type PasteApp } from './app.js';
import { databaseDirOf } from './database-dir.js';
import { generatedSecretsTableName } from './common/generated-secrets.table.js';
import { pasteSettingsSchema, type PasteSettings } from './settings/settings.schema.js';
import { settingsTableName } from './settings/settings.table.js';

export interface StartedPasteService {
  url: string;
  running: RunningServer;
  paste: PasteApp;
  database: Database;
  settings: SettingsStore<PasteSettings>;
  stop(): Promise<void>;
}

export function uploadDirOf(config: Config): string {
  return path.resolve(config.PASTE_UPLOAD_DIR ?? path.join(config.DATA_DIR, 'paste-uploads', 'images'));
}

/**
 * Opens the database, migrates, starts the job queue and the HTTP server. `main.ts` calls it
 * with the process configuration; the benchmark calls it with its own.
 */
export async function startPasteService(
  processConfig: Config,
  options: {
    logger?: Logger;
    handleSignals?: boolean;
    port?: number;
    /** The embedded database, started already by main.ts (databaseDirOf), when no URL is configured. */
    embedded?: Promise<EmbeddedServer>;
  } = {},
): Promise<StartedPasteService> {
  const logger = options.logger ?? createLogger({ level: processConfig.LOG_LEVEL, name: 'paste' });
  // What start-up opens is closed last first at shutdown, and when start-up fails half-way.
  return startUp(logger, async (opened) => {
    // A start that fails before the database is opened below still closes the one already started.
    opened.push(() =>
      options.embedded?.then(
        (server) => server.close(),
        () => undefined,
      ),
    );
    // The identity provider first: a development provider whose port is taken stops the start
    // before the database is opened.
    const port = options.port ?? processConfig.PASTE_PORT;
    const publicUrl = (processConfig.PASTE_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
    const { oauth, devIdp } = await resolveIdentityProvider(processConfig, logger, publicUrl);
    opened.push(() => devIdp?.stop());
    const url = processConfig.PASTE_DATABASE_URL ?? processConfig.DATABASE_URL;
    const database = await openDatabase(
      url
        ? {
            url,
            replicaUrl: processConfig.PASTE_DATABASE_REPLICA_URL ?? processConfig.DATABASE_REPLICA_URL,
            replicaLog: (message, level) => logger[level](message),
            migrationUrl: processConfig.PASTE_DATABASE_MIGRATION_URL ?? processConfig.DATABASE_MIGRATION_URL,
            poolMode: processConfig.PASTE_DATABASE_POOL_MODE ?? processConfig.DATABASE_POOL_MODE,
          }
        : {
            dataDir: databaseDirOf(processConfig),
            started: options.embedded,
            sharedBuffers: processConfig.EMBEDDED_SHARED_BUFFERS,
            warn: (message) => logger.warn(message),
          },
    );
    opened.push(() => database.close());
    await runMigrations(database.migrationDb, migrationsFolder, 'paste');
    if (processConfig.MIGRATE_ONLY) {
      logger.info('MIGRATE_ONLY is set: the database is migrated; exiting');
      await opened.closeAll();
      process.exit(0);
    }
    // On a database server the generated secret and the uploads live in the database: any
    // number of instances share them, and nothing is written to the data folder.
    const sessionSecret =
      database.mode === 'server'
        ? await resolveSessionSecretInDatabase(processConfig, (generate) =>
            keepGeneratedSecret(database.pool, generatedSecretsTableName, 'session-secret', generate),
          )
        : resolveSessionSecret(processConfig, 'paste');
    const sessionSecretNote = describeSessionSecret(sessionSecret);
    if (sessionSecretNote) logger.info({ file: sessionSecret.file }, sessionSecretNote);
    const config: Config = { ...processConfig, SESSION_SECRET: sessionSecret.secret };
    const settings = await createSettingsStore({
      pool: database.pool,
      table: settingsTableName,
      namespace: 'paste',
      schema: pasteSettingsSchema,
    });
    opened.push(() => settings.close());
    const redis: Redis | undefined = config.REDIS_URL ? createRedisClient(config.REDIS_URL) : undefined;
    opened.push(() => redis?.disconnect());

    const paste = createApp({
      config,
      database,
      logger,
      settings,
      oauth,
      publicUrl,
      uploadDir: uploadDirOf(config),
      uploadsIn: database.mode === 'server' ? 'database' : 'folder',
      redis,
    });
    opened.push(() => paste.close());
    // A job schema of its own: the license service may share this database (a lone DATABASE_URL).
    const queue: JobQueue = await createJobQueue({ pool: database.pool, logger, schema: 'pgboss_paste' });
    opened.push(() => queue.stop());
    opened.push(await paste.startJobs(queue));

    const running = await serveGracefully(paste.app, {
      port,
      portVariable: 'PASTE_PORT',
      logger,
      timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      drainMs: config.SHUTDOWN_DRAIN_MS,
      name: 'paste service',
      onClosed: opened.closeAll,
      handleSignals: options.handleSignals,
    });
    return { url: `http://127.0.0.1:${running.port}`, running, paste, database, settings, stop: () => running.stop() };
  });
}
