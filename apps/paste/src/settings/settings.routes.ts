import { Router } from 'express';
import { parseInput } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { Access } from '../shared/access.js';
import { advancedSettingsSchema, generalSettingsSchema, securitySettingsSchema, type PasteSettings } from './settings.schema.js';

// `changesLimits`: the owner reaches it under the fixed owner-settings limit, so a limit set too
// low never locks the owner out of raising it again.
const sections = [
  { path: 'general', schema: generalSettingsSchema, message: 'General settings updated successfully', changesLimits: false },
  // Saving fires the store's onChange, which rebuilds the rate limiters before we answer.
  { path: 'security', schema: securitySettingsSchema, message: 'Security settings updated successfully', changesLimits: true },
  { path: 'advanced', schema: advancedSettingsSchema, message: 'Advanced settings updated successfully', changesLimits: false },
] as const;

export function settingsRoutes(deps: { settings: SettingsStore<PasteSettings>; access: Access }): Router {
  const router = Router();
  router.get('/api/settings', ...deps.access.ownerSettings, (_req, res) => {
    res.set('Cache-Control', 'no-store').json(deps.settings.get());
  });
  for (const section of sections) {
    const guard = section.changesLimits ? deps.access.ownerSettingsWrite : deps.access.ownerWrite;
    router.post(`/api/settings/${section.path}`, ...guard, async (req, res) => {
      const patch = parseInput(section.schema, req.body) as Partial<PasteSettings>;
      const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<PasteSettings>;
      await deps.settings.update(defined);
      res.json({ success: true, message: section.message });
    });
  }
  return router;
}
