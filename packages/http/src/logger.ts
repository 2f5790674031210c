import { pino, type Logger as PinoLogger } from 'pino';
import { pinoHttp, startTime } from 'pino-http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

export type Logger = PinoLogger;

export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({ level: options.level ?? 'info', name: options.name });
}

const quietPaths = new Set(['/healthz', '/readyz']);

const levelOf = (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
  error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';

/**
 * One structured log line per request; health probes are not logged.
 *
 * pino-http makes each request's child logger (serializing the request) when the request
 * arrives, a large share of a small request's cost. When info lines are off (LOG_LEVEL warn or
 * above), most answers write nothing: the request is then handed to pino-http only once its
 * answer is known to be logged (a 4xx or 5xx), which writes the same line as before.
 */
export function requestLogger(logger: Logger): RequestHandler {
  const full = pinoHttp({
    logger,
    autoLogging: { ignore: (req) => quietPaths.has(req.url ?? '') },
    customLogLevel: levelOf,
  });
  return (req, res, next) => {
    if (logger.isLevelEnabled('info') || quietPaths.has(req.url ?? '')) {
      full(req, res, next);
      return;
    }
    const started = Date.now();
    const done = (error?: Error) => {
      res.off('finish', done);
      res.off('close', done);
      res.off('error', done);
      if (!logger.isLevelEnabled(levelOf(req, res, error))) return;
      (res as unknown as Record<symbol, number>)[startTime] = started;
      const before = new Set(res.listeners('finish'));
      full(req, res);
      // pino-http's own completion listener, called now since the answer is complete.
      const complete = res.listeners('finish').find((listener) => !before.has(listener)) as ((error?: Error) => void) | undefined;
      complete?.(error);
    };
    res.on('finish', done);
    res.on('close', done);
    res.on('error', done);
    next();
  };
}
