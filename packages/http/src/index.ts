export { HttpError, isHttpError } from './http-error.js';
export {
  createErrorHandler,
  describeError,
  plainTextRefusal,
  type ErrorAnswer,
  type ErrorHandlerOptions,
} from './error-handler.js';
export { backLinkOf, wantsHtmlErrorPage } from './error-page.js';
export { validate, parseInput, validationDetails, readableIssue } from './validate.js';
export {
  createLogger,
  requestLogger,
  requestIdOf,
  secretHeaders,
  wantsPrettyLogs,
  type Logger,
  type LoggerOptions,
  type RequestLogOptions,
} from './logger.js';
export { commonMiddleware, apiNotFound, trustsAProxy, type CommonMiddlewareOptions } from './common-middleware.js';
export { isQuickJsonType, jsonBody } from './performance/json-body.js';
export { healthRouteDeclarations, healthRoutes } from './health.js';
export { openedResources, runMain, startUp, type OpenedResources } from './start-up.js';
export { createExpressServer } from './performance/express-server.js';
export { serveGracefully, type RunningServer, type ServeOptions } from './serve.js';
export {
  startService,
  type OpenedForApp,
  type ServiceApp,
  type ServiceDefinition,
  type ServiceOpeners,
  type StartedService,
} from './start-service.js';
export { escapeHtml, html, raw, Raw } from './html.js';
export {
  answerKindOf,
  defineRoute,
  mountRoutes,
  publicAccess,
  ResponseMismatchError,
  StatusAnswer,
  withStatus,
  type AnswerKind,
  type AnswerSigner,
  type MountOptions,
  type RefusalAnswer,
  type AnyRoute,
  type Guard,
  type HttpMethod,
  type ResponseDeclaration,
  type RouteDeclaration,
  type RouteInput,
} from './routes.js';
export {
  createOpenApiDocument,
  openApiPath,
  openApiRoutes,
  publishedDocument,
  type OpenApiInfo,
  type OpenApiOptions,
} from './openapi.js';
export {
  closeModules,
  declaredRoutes,
  modulesAt,
  mountRouters,
  mountStage,
  routesAt,
  startModules,
  type FeatureModule,
  type ModuleRouter,
  type MountStage,
} from './feature-module.js';
export { listMountedRoutes, type MountedRoute } from './route-inventory.js';
export { appError, defineErrorCodes, errorCodes, type ErrorCatalogue, type ErrorCode } from './error-codes.js';
export {
  readYourWrites,
  RECENT_WRITE_COOKIE,
  READ_YOUR_WRITES_MS,
  type ReadYourWritesOptions,
} from './recent-writes.js';
