import { Router } from 'express';
import type { SettingsStore } from '@app/settings';
import type { PasteSettings } from '../settings/settings.schema.js';
import { homePage } from './views.js';

export function pageRoutes(deps: { settings: SettingsStore<PasteSettings> }): Router {
  const router = Router();
  router.get('/', (req, res) => {
    const error = typeof req.query.error === 'string' ? req.query.error : undefined;
    res.type('html').send(homePage(deps.settings.get(), error));
  });
  return router;
}
