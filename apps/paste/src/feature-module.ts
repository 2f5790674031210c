import type { RequestHandler } from 'express';
import type { AnyRoute } from '@app/http';
import type { JobQueue } from '@app/events';

/** A scheduled or queued piece of work; answers how to stop what it started. */
export type Job = (queue: JobQueue) => Promise<() => void>;

/**
 * What a feature folder gives the app: `app.ts` lists the modules and mounts them, so a feature
 * is added or removed in one line.
 */
export interface FeatureModule {
  name: string;
  /** Static files, served before the session and outside every rate limit. */
  staticFiles?: { path: string; handler: RequestHandler }[];
  /** Routes that need no session (health checks, redirects), mounted with the static files. */
  sessionlessRoutes?: AnyRoute[];
  routes: AnyRoute[];
  /**
   * Routes that carry most of the traffic. A request without a session cookie reaches them
   * right after the security headers and the request log, before the shared body parsers, the
   * static files and the session, so they parse their own bodies and need no session; a request
   * with one reaches them first among the routes.
   */
  hotRoutes?: AnyRoute[];
  jobs?: Job[];
}
