import type { Express, Request, RequestHandler } from 'express';
import { mountRoutes, type AnyRoute, type MountOptions } from '@app/http';
import type { JobQueue } from '@app/events';
import type { FeatureModule } from './feature-module.js';

/** Every route the modules declare, in mounting order. */
export function declaredRoutes(modules: readonly FeatureModule[]): AnyRoute[] {
  return [
    ...modules.flatMap((module) => module.sessionlessRoutes ?? []),
    ...hotRoutes(modules),
    ...modules.flatMap((module) => module.routes),
  ];
}

const hotRoutes = (modules: readonly FeatureModule[]) => modules.flatMap((module) => module.hotRoutes ?? []);

/**
 * The hot routes for requests without a session cookie (`commonMiddleware`'s hot lane); any
 * other request, and one they do not answer, goes on.
 */
export function hotLane(
  modules: readonly FeatureModule[],
  hasSessionCookie: (req: Request) => boolean,
  options: MountOptions = {},
): RequestHandler {
  const table = mountRoutes(hotRoutes(modules), options);
  return (req, res, next) => (hasSessionCookie(req) ? next() : table(req, res, next));
}

/**
 * Static files and session-free routes first (no session lookup, no rate limit), then the
 * session, then every module's routes in the order the modules are listed.
 */
export function mountModules(
  app: Express,
  modules: readonly FeatureModule[],
  session: RequestHandler,
  options: MountOptions = {},
): void {
  for (const { path, handler } of modules.flatMap((module) => module.staticFiles ?? [])) app.use(path, handler);
  app.use(
    mountRoutes(
      modules.flatMap((module) => module.sessionlessRoutes ?? []),
      options,
    ),
  );
  app.use(session);
  app.use(mountRoutes([...hotRoutes(modules), ...modules.flatMap((module) => module.routes)], options));
}

/** Starts every module's jobs; answers how to stop them all. */
export async function startJobs(modules: readonly FeatureModule[], queue: JobQueue): Promise<() => void> {
  const stops: (() => void)[] = [];
  for (const job of modules.flatMap((module) => module.jobs ?? [])) stops.push(await job(queue));
  return () => stops.forEach((stop) => stop());
}
