import type { Express } from 'express';
import { servedDeclarations, type AnyRoute } from './routes.js';

/** A method and path that an Express app answers, as mounted. */
export interface MountedRoute {
  method: string;
  path: string;
}

interface StackLayer {
  rawPath?: string | string[];
  slash?: boolean;
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: StackLayer[]; [servedDeclarations]?: readonly AnyRoute[] };
}

function walk(stack: StackLayer[], prefix: string, found: MountedRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const method of Object.keys(layer.route.methods).filter((name) => name !== '_all')) {
        for (const path of paths) found.push({ method, path: `${prefix}${path}` });
      }
    } else if (layer.handle?.[servedDeclarations]) {
      // A route table (mountRoutes): its declarations, as mounted at the root.
      for (const route of layer.handle[servedDeclarations])
        found.push({ method: route.method, path: `${prefix}${route.path}` });
    } else if (layer.handle?.stack) {
      const mountPath = layer.slash || typeof layer.rawPath !== 'string' || layer.rawPath === '/' ? '' : layer.rawPath;
      walk(layer.handle.stack, `${prefix}${mountPath}`, found);
    }
  }
}

/**
 * Every route an app has mounted (Express 5's router stack, routers and route tables included), so a test can
 * compare what is served with what is documented.
 */
export function listMountedRoutes(app: Express): MountedRoute[] {
  const found: MountedRoute[] = [];
  // Express keeps its router's layers on `app.router`; they are not part of its typed API.
  const root = (app as unknown as { router: { stack: StackLayer[] } }).router;
  walk(root.stack, '', found);
  return found;
}
