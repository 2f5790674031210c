import { getConfig } from '@app/config';
import { startPasteService } from './server.js';

// `npm start` runs this (through scripts/start.ts); `tsx apps/paste/src/main.ts` runs the paste service alone.
startPasteService(getConfig()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
