import type { Express } from 'express';
import type { Server } from 'node:http';
import type { Logger } from './logger.js';

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting connections, lets requests in flight finish, then runs `onClosed`. */
  stop(): Promise<void>;
}

/**
 * Listens, and on SIGTERM/SIGINT stops taking new connections, waits for requests in flight
 * (at most `timeoutMs`), then runs `onClosed` (close the database, the queue) and exits.
 */
export async function serveGracefully(app: Express, options: {
  port: number; host?: string; logger: Logger; timeoutMs: number; name: string; onClosed: () => Promise<void>; handleSignals?: boolean;
}): Promise<RunningServer> {
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(options.port, options.host ?? '0.0.0.0', (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  options.logger.info({ port }, `${options.name} listening on port ${port}`);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), options.timeoutMs);
      await closed;
      clearTimeout(timer);
      await options.onClosed();
      options.logger.info(`${options.name} stopped`);
    })();
    return stopping;
  };
  if (options.handleSignals !== false) {
    // The handlers stay for the whole shutdown: one Ctrl+C or `kill` of a process group often
    // arrives more than once (from the terminal, and relayed by `npm start` and tsx), and a
    // signal without a handler would end the process before its database has closed.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => {
        if (stopping) {
          options.logger.info({ signal }, `${options.name} is already shutting down`);
          return;
        }
        options.logger.info({ signal }, `${options.name} shutting down`);
        stop().then(() => process.exit(0), (error) => { options.logger.error({ err: error }, 'shutdown failed'); process.exit(1); });
      });
    }
  }
  return { server, port, stop };
}
