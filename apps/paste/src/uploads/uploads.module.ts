import type { PasteGuards } from '../access/guards.js';
import type { FeatureModule } from '../feature-module.js';
import { uploadedFiles, uploadRoutes } from './upload.routes.js';
import type { UploadService } from './upload.service.js';

/** The owner's logo and favicon: uploads, and the files served back. */
export function uploadsModule(deps: { service: UploadService; guards: PasteGuards; uploadDir: string }): FeatureModule {
  return {
    name: 'uploads',
    staticFiles: [{ path: '/uploads/images', handler: uploadedFiles(deps.uploadDir) }],
    routes: uploadRoutes(deps),
  };
}
