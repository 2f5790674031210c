import { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import { validate } from '@app/http';
import type { SettingsStore } from '@app/settings';
import { recordAudit } from '../audit/audit.repository.js';
import { actorOf } from '../common/actor.js';
import { configPatchSchema, panicBodySchema, type ConfigPatch, type LicenseSettings } from './runtime-config.schema.js';

/**
 * `GET/PUT /api/admin/config` (security.panicMode, rateLimit.enabled/windowMs/max,
 * userRateLimit.windowMs/max) and the
 * panic switch `GET/POST /api/admin/panic`. The settings store has its own transaction, so
 * the audit entry follows the change right after it.
 */
export function runtimeConfigRoutes(deps: {
  pool: pg.Pool; settings: SettingsStore<LicenseSettings>; requireAdmin: RequestHandler;
  effectiveRateLimit: () => { enabled: boolean; windowMs: number; max: number };
}): Router {
  const { settings, pool } = deps;
  const router = Router();
  router.use('/api/admin', deps.requireAdmin);

  const view = () => ({
    security: settings.get().security, rateLimit: deps.effectiveRateLimit(), userRateLimit: settings.get().userRateLimit, stored: settings.get(),
  });

  const apply = async (req: Parameters<RequestHandler>[0], patch: ConfigPatch) => {
    const before = settings.get();
    const after = await settings.update({
      security: { ...before.security, ...patch.security },
      rateLimit: { ...before.rateLimit, ...patch.rateLimit },
      userRateLimit: { ...before.userRateLimit, ...patch.userRateLimit },
    });
    const action = patch.security?.panicMode !== undefined && patch.security.panicMode !== before.security.panicMode
      ? (patch.security.panicMode ? 'suspend' : 'activate') : 'update';
    await recordAudit(pool, actorOf(req), { action, resourceType: 'system', resourceId: 'config', before, after });
  };

  router.get('/api/admin/config', (_req, res) => { res.json({ success: true, config: view() }); });
  router.put('/api/admin/config', validate({ body: configPatchSchema }), async (req, res) => {
    await apply(req, req.valid.body as ConfigPatch);
    res.json({ success: true, config: view() });
  });
  router.get('/api/admin/panic', (_req, res) => { res.json({ success: true, panicMode: settings.get().security.panicMode }); });
  router.post('/api/admin/panic', validate({ body: panicBodySchema }), async (req, res) => {
    await apply(req, { security: { panicMode: (req.valid.body as { enabled: boolean }).enabled } });
    res.json({ success: true, panicMode: settings.get().security.panicMode });
  });
  return router;
}
