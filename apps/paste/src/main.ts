import { getConfig, PortInUseError } from '@app/config';
import { DataFolderInUseError } from '@app/db';
import { startPasteService } from './server.js';

// `npm start` runs this (through scripts/start.ts); `tsx apps/paste/src/main.ts` runs the paste service alone.
startPasteService(getConfig()).catch((error: unknown) => {
  // Another process holds the data folder or the port: its one line says all there is to say.
  console.error(error instanceof DataFolderInUseError || error instanceof PortInUseError ? error.message : error);
  process.exit(1);
});
