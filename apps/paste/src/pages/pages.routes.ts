import { Router } from 'express';
import type { SettingsStore } from '@app/settings';
import type { PasteSettings } from '../settings/settings.schema.js';
import { homePage } from './views.js';

export function pageRoutes(deps: { settings: SettingsStore<PasteSettings> }): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    res.type('html').send(homePage(deps.settings.get()));
  });
  return router;
}
