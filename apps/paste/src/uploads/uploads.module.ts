import type { PasteGuards } from '../access/guards.js';
import type { FeatureModule } from '../feature-module.js';
import { uploadRoutes } from './upload.routes.js';
import type { UploadService } from './upload.service.js';
import type { UploadStore } from './upload-store.js';

/** The owner's logo and favicon: uploads, and the files served back. */
export function uploadsModule(deps: {
  service: UploadService;
  guards: PasteGuards;
  store: UploadStore;
}): FeatureModule {
  return {
    name: 'uploads',
    staticFiles: [{ path: '/uploads/images', handler: deps.store.serve }],
    routes: uploadRoutes(deps),
  };
}
