import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import { mountRoutes, type AnyRoute, type MountOptions } from './routes.js';

/**
 * Where a module's routes sit in the request pipeline, in this order:
 * - `rawBody`: before any middleware or body parser (a receiver that checks the signature of
 *   the exact bytes);
 * - `hotPath`: before the session, for the routes that carry most of the traffic; they parse
 *   their own bodies. The app places the stage: the license service before the security headers
 *   and the request log (validation, many times a second), the paste service right after them
 *   for requests without a session cookie;
 * - `sessionless`: after the security headers, the request log and the body parsers, before the
 *   session: static files, health checks, the favicon;
 * - `app` (the default): after the session (and the app's CSRF check and per-user rate limit).
 */
export type MountStage = 'rawBody' | 'hotPath' | 'sessionless' | 'app';

/** A handler that is not a route (static files), below a path or for every path. */
export type ModuleRouter = RequestHandler | { path: string; handler: RequestHandler };

/**
 * What a feature folder gives the app: its routes as declarations at one stage, and what it
 * runs besides requests. Each feature exports a function that takes exactly what the feature
 * needs (the job queue too, when it has jobs) and returns its module (a feature whose routes sit
 * at two stages returns one module per stage); `app.ts` lists the modules and mounts them, so a
 * feature is added in one line. `startService` subscribes their event handlers and starts their
 * jobs before the service listens; the app's `close` closes them.
 */
export interface FeatureModule {
  name: string;
  stage?: MountStage;
  routes: AnyRoute[];
  /** Handlers that are not routes (static files): mounted right after the module's routes. */
  routers?: ModuleRouter[];
  /** The routes' own error answers below a path (ahead of the app's): mounted right after the routers. */
  errorHandlers?: { path: string; handlers: ErrorRequestHandler[] };
  /** Subscribes the feature's handlers to the event bus; called once, before any job starts. */
  eventHandlers?(): void | Promise<void>;
  /** Starts the feature's workers and schedules its jobs; called once, after every subscription. */
  jobs?(): Promise<void>;
  /** Stops what `jobs` started. */
  close?(): Promise<void>;
}

const stages: MountStage[] = ['rawBody', 'hotPath', 'sessionless', 'app'];

const stageOf = (module: FeatureModule): MountStage => module.stage ?? 'app';

/** The modules whose routes sit at `stage`, in the order they are listed. */
export const modulesAt = <Module extends FeatureModule>(modules: readonly Module[], stage: MountStage): Module[] =>
  modules.filter((module) => stageOf(module) === stage);

/** Every route declared at `stage`, in the order the modules are listed. */
export const routesAt = (modules: readonly FeatureModule[], stage: MountStage): AnyRoute[] =>
  modulesAt(modules, stage).flatMap((module) => module.routes);

/** Every route the modules declare, stage by stage in pipeline order (the API description lists them). */
export const declaredRoutes = (modules: readonly FeatureModule[]): AnyRoute[] =>
  stages.flatMap((stage) => routesAt(modules, stage));

/** Mounts what one module gives beside its routes: its routers, then its error handlers. */
export function mountRouters(app: Express, module: FeatureModule): void {
  for (const router of module.routers ?? []) {
    if (typeof router === 'function') app.use(router);
    else app.use(router.path, router.handler);
  }
  if (module.errorHandlers) app.use(module.errorHandlers.path, ...module.errorHandlers.handlers);
}

/**
 * Mounts the modules at `stage` in the order they are listed, each with its own route table
 * followed by its routers and error handlers.
 */
export function mountStage(
  app: Express,
  modules: readonly FeatureModule[],
  stage: MountStage,
  options: MountOptions = {},
): void {
  for (const module of modulesAt(modules, stage)) {
    app.use(mountRoutes(module.routes, options));
    mountRouters(app, module);
  }
}

/** Subscribes every module's event handlers, then starts every module's jobs, in the order listed. */
export async function startModules(modules: readonly FeatureModule[]): Promise<void> {
  for (const module of modules) await module.eventHandlers?.();
  for (const module of modules) await module.jobs?.();
}

/** Stops what the modules' jobs started, in the order listed. */
export async function closeModules(modules: readonly FeatureModule[]): Promise<void> {
  for (const module of modules) await module.close?.();
}
