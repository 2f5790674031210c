import path from 'node:path';
import type { Config } from '@app/config';

/** The embedded database's folder (main.ts starts the database there before loading the service). */
export const databaseDirOf = (config: Config): string => path.join(config.DATA_DIR, 'paste');
