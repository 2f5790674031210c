import express from 'express';
import type { SettingsStore } from '@app/settings';
import { UI_STATIC_PATH, uiStatic } from '@app/ui';
import type { ApiKeyService } from '../api-keys/api-key.service.js';
import type { PasteGuards } from '../access/guards.js';
import type { FeatureModule } from '../feature-module.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import type { StatsService } from '../stats/stats.service.js';
import type { ModerationService } from '../pastes/moderation.service.js';
import { adminRoutes } from './admin.routes.js';
import { publicDir } from '../paths.js';
import { faviconRoute, pageRoutes } from './pages.routes.js';

/** The home page and the owner's dashboard. */
export function pagesModule(deps: {
  settings: SettingsStore<PasteSettings>;
  stats: StatsService;
  apiKeys: ApiKeyService;
  moderation: ModerationService;
  guards: PasteGuards;
  now: () => Date;
}): FeatureModule {
  return {
    name: 'pages',
    staticFiles: [
      { path: UI_STATIC_PATH, handler: uiStatic() },
      { path: '/static', handler: express.static(publicDir, { index: false, maxAge: '1h' }) },
    ],
    sessionlessRoutes: [faviconRoute(deps.settings)],
    routes: [...pageRoutes(deps), ...adminRoutes(deps)],
  };
}
