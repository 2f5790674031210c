import { pino, type Logger as PinoLogger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { RequestHandler } from 'express';

export type Logger = PinoLogger;

export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({ level: options.level ?? 'info', name: options.name });
}

const quietPaths = new Set(['/healthz', '/readyz']);

/** One structured log line per request; health probes are not logged. */
export function requestLogger(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    autoLogging: { ignore: (req) => quietPaths.has(req.url ?? '') },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
  });
}
