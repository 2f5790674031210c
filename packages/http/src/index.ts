export { HttpError, isHttpError } from './http-error.js';
export { createErrorHandler, describeError, type ErrorStyle, type ErrorHandlerOptions } from './error-handler.js';
export { validate, parseInput, validationDetails, readableIssue } from './validate.js';
export { createLogger, requestLogger, requestIdOf, secretRequestHeaders, type Logger, type LoggerOptions, type RequestLogOptions } from './logger.js';
export { commonMiddleware, apiNotFound, type CommonMiddlewareOptions } from './common-middleware.js';
export { healthRoutes } from './health.js';
export { serveGracefully, type RunningServer } from './serve.js';
export { escapeHtml, html, raw, Raw } from './html.js';
