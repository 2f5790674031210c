import { getConfig } from '@app/config';
import { runMain } from '@app/http';
import { startPasteService } from './server.js';

// `npm start` runs this (through scripts/start.ts); `tsx apps/paste/src/main.ts` runs the paste service alone.
runMain(() => startPasteService(getConfig()));
