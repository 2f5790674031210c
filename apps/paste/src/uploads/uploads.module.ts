import type { PasteGuards } from '../access/guards.js';
import type { FeatureModule } from '@app/http';
import { uploadRoutes } from './uploads.routes.js';
import type { UploadService } from './uploads.service.js';
import type { UploadStore } from './upload-store.js';

/** The owner's logo and favicon: uploads, and the files served back. */
export function uploadsModules(deps: {
  service: UploadService;
  guards: PasteGuards;
  store: UploadStore;
}): FeatureModule[] {
  return [
    // The files served back need no session.
    {
      name: 'uploaded-files',
      stage: 'sessionless',
      routes: [],
      routers: [{ path: '/uploads/images', handler: deps.store.serve }],
    },
    { name: 'uploads', routes: uploadRoutes(deps) },
  ];
}
