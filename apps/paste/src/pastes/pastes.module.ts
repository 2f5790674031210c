import type { AnyRoute, FeatureModule } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { PasteGuards } from '../access/guards.js';
import { createHighlighter } from '../rendering/highlight.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import { pasteRoutes } from './pastes.routes.js';
import type { PasteService } from './pastes.service.js';

/**
 * Pastes: create, read, unlock. Creating and reading sit on the hot path (see `hotRoutes`), the
 * rest after the session.
 */
export function pastesModules(deps: {
  service: PasteService;
  settings: SettingsStore<PasteSettings>;
  guards: PasteGuards;
  now: () => Date;
}): FeatureModule[] {
  const pasteRouteList = pasteRoutes({ ...deps, highlight: createHighlighter() });
  const isHot = (route: AnyRoute) => hotRoutes.has(routeKey(route));
  // A renamed path would otherwise leave the hot lane quietly (still served, only slower).
  const missing = [...hotRoutes].filter((key) => !pasteRouteList.some((route) => routeKey(route) === key));
  if (missing.length > 0) throw new Error(`Hot routes that pastes.routes.ts no longer declares: ${missing.join(', ')}`);
  return [
    { name: 'pastes-hot', stage: 'hotPath', routes: pasteRouteList.filter(isHot) },
    {
      name: 'pastes',
      routes: pasteRouteList.filter((route) => !isHot(route)),
    },
  ];
}

const routeKey = (route: AnyRoute) => `${route.method} ${route.path}`;

/** Creating a paste and reading one: nearly all of the service's traffic. */
const hotRoutes = new Set([
  'post /api/paste',
  'head /paste/:slug',
  'head /paste/:slug/raw',
  'get /paste/:slug',
  'get /paste/:slug/raw',
]);
