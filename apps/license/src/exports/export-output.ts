import type { Response } from 'express';

/** Where an export writes: the HTTP response, with backpressure honoured. */
export interface ExportOutput {
  /** Writes a chunk; resolves once the response can take more. False when the client has gone. */
  write(chunk: string | Buffer): Promise<boolean>;
  readonly closed: boolean;
}

export function responseOutput(res: Response): ExportOutput {
  return {
    get closed() {
      return res.destroyed || res.writableEnded;
    },
    async write(chunk) {
      if (res.destroyed) return false;
      if (res.write(chunk)) return true;
      // Wait for the socket to drain (or the client to leave): at most about one batch is ever buffered.
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
      return !res.destroyed;
    },
  };
}

/**
 * `licenses-2026-11-24.csv`: the UTC date of the export, which a person reads at a glance, sorts
 * and is safe in every file system (a second export the same day: the browser adds ` (1)`).
 */
export function exportFilename(name: string, extension: string, now: Date): string {
  return `${name}-${now.toISOString().slice(0, 10)}.${extension}`;
}
