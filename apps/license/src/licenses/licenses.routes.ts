import { Router, type RequestHandler } from 'express';
import { validate } from '@app/http';
import { actorOf } from '../common/actor.js';
import type { licensesService } from './licenses.service.js';
import {
  createLicenseSchema, keySchema, listLicensesQuery, reasonSchema, updateLicenseSchema,
  type CreateLicense, type ListLicenses, type UpdateLicense,
} from './licenses.schema.js';

type Service = ReturnType<typeof licensesService>;

/** The admin resource API of licenses, and rotate/clear of the specification. */
export function licenseRoutes(deps: { service: Service; requireAdmin: RequestHandler }): Router {
  const { service, requireAdmin } = deps;
  const router = Router();
  router.use(['/api/licenses', '/api/license/rotate', '/api/license/clear'], requireAdmin);
  const id = (params: Record<string, string | string[]>) => String(params.id);
  const reason = (body: unknown) => (body as { reason?: string }).reason;

  router.get('/api/licenses', validate({ query: listLicensesQuery }), async (req, res) => {
    const { licenses, total } = await service.list(req.valid.query as ListLicenses);
    res.json({ success: true, licenses, count: licenses.length, total });
  });
  router.get('/api/licenses/:id', async (req, res) => {
    res.json({ success: true, license: await service.detail(id(req.params)) });
  });
  router.post('/api/licenses', validate({ body: createLicenseSchema }), async (req, res) => {
    res.status(201).json({ success: true, license: await service.create(actorOf(req), req.valid.body as CreateLicense) });
  });
  router.put('/api/licenses/:id', validate({ body: updateLicenseSchema }), async (req, res) => {
    res.json({ success: true, license: await service.update(actorOf(req), id(req.params), req.valid.body as UpdateLicense) });
  });
  router.delete('/api/licenses/:id', async (req, res) => {
    await service.remove(actorOf(req), id(req.params));
    res.json({ success: true });
  });
  router.post('/api/licenses/:id/suspend', validate({ body: reasonSchema }), async (req, res) => {
    res.json({ success: true, license: await service.suspend(actorOf(req), id(req.params), reason(req.valid.body)) });
  });
  router.post('/api/licenses/:id/reactivate', async (req, res) => {
    res.json({ success: true, license: await service.reactivate(actorOf(req), id(req.params)) });
  });
  router.post('/api/licenses/:id/revoke', validate({ body: reasonSchema }), async (req, res) => {
    res.json({ success: true, license: await service.revoke(actorOf(req), id(req.params), reason(req.valid.body)) });
  });

  router.post('/api/license/rotate', validate({ body: keySchema }), async (req, res) => {
    const { oldKey, newKey } = await service.rotate(actorOf(req), (req.valid.body as { key: string }).key);
    res.json({ success: true, oldKey, newKey });
  });
  router.post('/api/license/clear', validate({ body: keySchema }), async (req, res) => {
    await service.clear(actorOf(req), (req.valid.body as { key: string }).key);
    res.json({ success: true, message: 'License restrictions cleared' });
  });
  return router;
}
