// The paste service's entry; `tsx apps/paste/src/main.ts` runs it alone, `npm start` through
// scripts/start.ts. It loads the configuration, the logger and the embedded database's starter
// only, starts the database, and then loads the service: PGlite opens in its own thread while
// this one loads the service's modules, about half a second of each start (docs/performance.md).
import { getConfig, startsDevelopmentProvider } from '@app/config';
import { startEmbeddedServer } from '@app/db/embedded';
import { createLogger } from '@app/http/logger';
import { databaseDirOf } from './database-dir.js';

const config = getConfig();
const logger = createLogger({ level: config.LOG_LEVEL, name: 'paste' });
// A service that runs its own development provider starts it first, and the database after it:
// a provider's port in use stops the start before a data folder is touched.
const embedded =
  (config.PASTE_DATABASE_URL ?? config.DATABASE_URL) || startsDevelopmentProvider(config)
    ? undefined
    : startEmbeddedServer({
        dataDir: databaseDirOf(config),
        sharedBuffers: config.EMBEDDED_SHARED_BUFFERS,
        warn: (message) => logger.warn(message),
      });
const { runPasteService } = await import('./service.js');
runPasteService(config, logger, embedded);
