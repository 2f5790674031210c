import { PortInUseError } from '@app/config';
import { DataFolderInUseError } from '@app/db';
import type { Logger } from './logger.js';

/**
 * What a service's start-up has opened so far (the identity provider, the database, the
 * settings store, the queue ...), closed last first: at shutdown, and also when start-up fails
 * half-way (a port in use), so the embedded database's socket folder and lock do not outlive
 * the process.
 */
export interface OpenedResources {
  /** Remembers how to close what was just opened. */
  push: (close: () => unknown) => void;
  /** Closes everything opened, last first; a second call finds nothing left to close. */
  closeAll: () => Promise<void>;
}

export function openedResources(): OpenedResources {
  const closers: (() => unknown)[] = [];
  return {
    push: (close) => void closers.push(close),
    closeAll: async () => {
      for (const close of closers.reverse().splice(0)) await close();
    },
  };
}

/**
 * Runs a service's start-up with a fresh list of what it opens; if start-up throws, closes what
 * it had opened (a failure to close is logged, the start-up's own error is the one thrown).
 */
export async function startUp<Started>(
  logger: Logger,
  start: (opened: OpenedResources) => Promise<Started>,
): Promise<Started> {
  const opened = openedResources();
  try {
    return await start(opened);
  } catch (error) {
    await opened
      .closeAll()
      .catch((closing: unknown) => logger.error({ err: closing }, 'closing after a failed start failed'));
    throw error;
  }
}

/**
 * A service's `main`: runs `start`, and when it fails prints why and exits with 1. Another
 * process holding the data folder or the port gets its one line (it says all there is to say);
 * anything else is printed whole.
 */
export function runMain(start: () => Promise<unknown>): void {
  start().catch((error: unknown) => {
    console.error(error instanceof DataFolderInUseError || error instanceof PortInUseError ? error.message : error);
    process.exit(1);
  });
}
