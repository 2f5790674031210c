import { Router } from 'express';
import { parseInput } from '@app/http';
import type { Access } from '../shared/access.js';
import { apiKeyParamsSchema, createApiKeySchema } from './api-key.schema.js';
import type { ApiKeyService } from './api-key.service.js';

export function apiKeyRoutes(deps: { service: ApiKeyService; access: Access }): Router {
  const router = Router();
  router.post('/api/settings/api-keys', ...deps.access.ownerWrite, async (req, res) => {
    const { name } = parseInput(createApiKeySchema, req.body);
    const apiKey = await deps.service.create(name);
    res.set('Cache-Control', 'no-store').json({ success: true, message: 'API key created: copy it now, it is not shown again', apiKey });
  });
  router.get('/api/settings/api-keys', ...deps.access.owner, async (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ apiKeys: await deps.service.list() });
  });
  router.delete('/api/settings/api-keys/:id', ...deps.access.ownerWrite, async (req, res) => {
    const { id } = parseInput(apiKeyParamsSchema, req.params);
    await deps.service.remove(id);
    res.json({ success: true, message: 'API key deleted' });
  });
  return router;
}
