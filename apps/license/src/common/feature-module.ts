import type { ErrorRequestHandler, Router } from 'express';
import type { AnyRoute } from '@app/http';

/**
 * Where a module's routes sit in the request pipeline, in this order:
 * - `rawBody`: before any body parser (a receiver that checks the signature of the exact bytes);
 * - `hotPath`: before the session, helmet and request log (license validation, many times a second);
 * - `app` (the default): after the session, CSRF check and per-user rate limit.
 */
export type MountStage = 'rawBody' | 'hotPath' | 'app';

/**
 * What a feature folder gives the app: its routes as declarations, and what it runs besides
 * requests. Each feature exports a function that takes exactly what the feature needs and
 * returns its module; app.ts lists the modules and mounts them.
 */
export interface FeatureModule {
  name: string;
  stage?: MountStage;
  routes: AnyRoute[];
  /** Handlers that are not routes (static files): mounted right after the routes. */
  routers?: Router[];
  /** The routes' own error answers below a path (ahead of the app's): mounted right after the routes. */
  errorHandlers?: { path: string; handlers: ErrorRequestHandler[] };
  /** Subscribes the feature's handlers to the event bus; called once, before any job starts. */
  eventHandlers?(): void | Promise<void>;
  /** Starts the feature's workers and schedules its jobs; called once, after every subscription. */
  jobs?(): Promise<void>;
  /** Stops what `jobs` started. */
  close?(): Promise<void>;
}
