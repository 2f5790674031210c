import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { explainListenError } from '@app/config';
import { createExpressServer } from './performance/express-server.js';
import { releaseFreedMemory } from './performance/freed-memory.js';
import type { Logger } from './logger.js';

/** How long a client may take to send a request's headers, and the whole request, in ms. */
const requestDeadlines = { headersTimeoutMs: 20_000, requestTimeoutMs: 30_000 };

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting connections, lets requests in flight finish, then runs `onClosed`. */
  stop(): Promise<void>;
}

export interface ServeOptions {
  port: number;
  host?: string;
  logger: Logger;
  /** How long requests in flight may take to finish at shutdown. */
  timeoutMs: number;
  /**
   * How long, at shutdown, /readyz answers 503 while requests are still served, before the
   * server stops listening: a load balancer's health checks take the instance out first, so no
   * request meets a closed port (SHUTDOWN_DRAIN_MS; default 0).
   */
  drainMs?: number;
  name: string;
  /** The variable that sets the port (PASTE_PORT), named when the port is taken. */
  portVariable?: string;
  onClosed: () => Promise<void>;
  handleSignals?: boolean;
  /** A client that has not sent all its headers by then is answered 408 and disconnected (default 20 s). */
  headersTimeoutMs?: number;
  /** A client that has not sent its whole request (headers and body) by then is answered 408 and disconnected (default 30 s). */
  requestTimeoutMs?: number;
}

/**
 * Listens, and on SIGTERM/SIGINT stops taking new connections, waits for requests in flight
 * (at most `timeoutMs`), then runs `onClosed` (close the database, the queue) and exits.
 */
export async function serveGracefully(app: Express, options: ServeOptions): Promise<RunningServer> {
  const headersTimeout = options.headersTimeoutMs ?? requestDeadlines.headersTimeoutMs;
  const requestTimeout = options.requestTimeoutMs ?? requestDeadlines.requestTimeoutMs;
  // Node's default lets a client that trickles its body hold a connection for 300 s. It checks
  // the deadlines on an interval (30 s by default), so a deadline could be overrun by that much:
  // a check every second (or a quarter of a shortened deadline) keeps each within about a second.
  const connectionsCheckingInterval = Math.max(
    10,
    Math.min(1000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4)),
  );
  const server = createExpressServer(app, { headersTimeout, requestTimeout, connectionsCheckingInterval });
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(explainListenError(error, options.port, options.portVariable ?? 'PORT'));
    server.once('error', failed);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', failed);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  options.logger.info({ port }, `${options.name} listening on port ${port}`);
  // What start-up's compiling freed goes back to the system once it is over (performance/freed-memory.ts).
  const freedMemory = releaseFreedMemory(options.logger);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      // Not ready from now on; answers ask their clients (the balancer) not to reuse the connection.
      app.locals.draining = true;
      freedMemory.stop();
      server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
        res.setHeader('Connection', 'close');
      });
      if (options.drainMs) await new Promise((resolve) => setTimeout(resolve, options.drainMs));
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
    // signal without a handler would end the process before its database has closed. The
    // repeats are one stop, so the terminal shows its lines once (the repeats at debug level).
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => {
        if (stopping) {
          options.logger.debug({ signal }, `${options.name} is already shutting down`);
          return;
        }
        options.logger.info({ signal }, `${options.name} shutting down`);
        stop().then(
          () => process.exit(0),
          (error) => {
            options.logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
  }
  return { server, port, stop };
}
