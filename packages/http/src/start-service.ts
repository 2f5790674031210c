import type pg from 'pg';
import type { Express } from 'express';
import { describeSessionSecret, resolveSessionSecret, resolveSessionSecretInDatabase, type Config } from '@app/config';
import {
  keepGeneratedSecret,
  openDatabase,
  runMigrations,
  type Database,
  type EmbeddedServer,
  type PoolMode,
} from '@app/db';
import { startModules, type FeatureModule } from './feature-module.js';
import type { Logger } from './logger.js';
import { serveGracefully, type RunningServer } from './serve.js';
import { startUp } from './start-up.js';

/** What an app's `createApp` gives `startService`: the Express app and the modules it is built from. */
export interface ServiceApp {
  app: Express;
  /** Their event handlers are subscribed and their jobs started before the service listens. */
  modules: readonly FeatureModule[];
  /** Releases what the app opened, the modules' jobs and timers included. */
  close(): Promise<void>;
}

/** What start-up opened before the app, handed to the app's `createApp`. */
export interface OpenedForApp<OAuth, Settings, Redis, Queue> {
  /** The process configuration with SESSION_SECRET resolved (configured, generated or kept). */
  config: Config;
  database: Database;
  oauth: OAuth;
  settings: Settings;
  redis: Redis | undefined;
  jobs: Queue;
}

/**
 * The pieces of a service that come from packages built on this one (sign-in, settings, rate
 * limits, the job queue): each app passes its own, so this package depends on none of them.
 */
export interface ServiceOpeners<OAuth, Settings, Redis, Queue> {
  /** Runs first: a development provider whose port is taken stops the start before the database is opened. */
  identityProvider(): Promise<{ oauth: OAuth; devIdp?: { stop(): unknown } }>;
  settings(pool: pg.Pool): Promise<Settings & { close(): unknown }>;
  /** Only when REDIS_URL is set. */
  redis(url: string): Redis & { disconnect(): unknown };
  jobQueue(pool: pg.Pool): Promise<Queue & { stop(): unknown }>;
}

export interface ServiceDefinition<OAuth, Settings, Redis, Queue, App extends ServiceApp> {
  /** 'paste', 'license': the log lines say '<name> service', the generated session secret's file is named after it. */
  name: string;
  config: Config;
  logger: Logger;
  port: number;
  /** The variable that sets the port (PASTE_PORT), named when the port is taken. */
  portVariable: string;
  database: {
    url: string | undefined;
    replicaUrl: string | undefined;
    /** A direct URL for migrations (past PgBouncer), when the service's own URL goes through a pooler. */
    migrationUrl?: string;
    /** `transaction` behind PgBouncer in transaction mode: statements are sent unnamed. */
    poolMode?: PoolMode;
    /** The embedded database's folder, used without a URL. */
    dataDir: string;
    /** The embedded database, started already by main.ts, when no URL is configured. */
    embedded?: Promise<EmbeddedServer>;
  };
  migrationsFolder: string;
  /** The table a generated session secret is kept in, on a database server. */
  generatedSecretsTable: string;
  open: ServiceOpeners<OAuth, Settings, Redis, Queue>;
  createApp(opened: OpenedForApp<OAuth, Settings, Redis, Queue>): App | Promise<App>;
  /** Stop on SIGTERM and SIGINT (default true; a benchmark that stops the service itself says false). */
  handleSignals?: boolean;
}

export interface StartedService<Settings, App extends ServiceApp> {
  url: string;
  running: RunningServer;
  app: App;
  database: Database;
  settings: Settings;
  /** What SIGTERM does: stops listening, lets requests finish, closes everything start-up opened. */
  stop(): Promise<void>;
}

/**
 * Starts a service: the identity provider, the database (migrated), the session secret, the
 * settings store, Redis, the job queue, the app; then the modules' event handlers and jobs, and
 * listens. What it opens is closed last first at shutdown, and when start-up fails half-way.
 */
export async function startService<OAuth, Settings, Redis, Queue, App extends ServiceApp>(
  service: ServiceDefinition<OAuth, Settings, Redis, Queue, App>,
): Promise<StartedService<Settings, App>> {
  const { config: processConfig, logger, open } = service;
  const { embedded } = service.database;
  return startUp(logger, async (opened) => {
    // A start that fails before the database is opened below still closes the one already started.
    opened.push(() =>
      embedded?.then(
        (server) => server.close(),
        () => undefined,
      ),
    );
    const { oauth, devIdp } = await open.identityProvider();
    opened.push(() => devIdp?.stop());
    const database = await openDatabase({
      url: service.database.url,
      replicaUrl: service.database.replicaUrl,
      migrationUrl: service.database.migrationUrl,
      poolMode: service.database.poolMode,
      replicaLog: (message, level) => logger[level](message),
      dataDir: service.database.dataDir,
      started: embedded,
      sharedBuffers: processConfig.EMBEDDED_SHARED_BUFFERS,
      warn: (message) => logger.warn(message),
    });
    opened.push(() => database.close());
    await runMigrations(database.migrationDb, service.migrationsFolder, service.name);
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
            keepGeneratedSecret(database.pool, service.generatedSecretsTable, 'session-secret', generate),
          )
        : resolveSessionSecret(processConfig, service.name);
    const sessionSecretNote = describeSessionSecret(sessionSecret);
    if (sessionSecretNote) logger.info({ file: sessionSecret.file }, sessionSecretNote);
    const config: Config = { ...processConfig, SESSION_SECRET: sessionSecret.secret };
    const settings = await open.settings(database.pool);
    opened.push(() => settings.close());
    const redis = config.REDIS_URL ? open.redis(config.REDIS_URL) : undefined;
    opened.push(() => redis?.disconnect());
    const jobs = await open.jobQueue(database.pool);
    opened.push(() => jobs.stop());
    const app = await service.createApp({ config, database, oauth, settings, redis, jobs });
    opened.push(() => app.close());
    await startModules(app.modules);

    const running = await serveGracefully(app.app, {
      port: service.port,
      portVariable: service.portVariable,
      logger,
      timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      drainMs: config.SHUTDOWN_DRAIN_MS,
      name: `${service.name} service`,
      onClosed: opened.closeAll,
      handleSignals: service.handleSignals,
    });
    return { url: `http://127.0.0.1:${running.port}`, running, app, database, settings, stop: () => running.stop() };
  });
}
