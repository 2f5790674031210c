import { createOpenApiDocument, openApiRoutes } from '@app/http';
import { securitySchemes } from '../access/guards.js';
import type { FeatureModule } from '../feature-module.js';
import { declaredRoutes } from '../mount-modules.js';

/** `GET /openapi.json` and the reference page `GET /docs`, made from every module's declarations and their own. */
export function apiDocsModule(documented: readonly FeatureModule[]): FeatureModule {
  let document: Record<string, unknown> | undefined;
  const docs = openApiRoutes(
    () =>
      (document ??= createOpenApiDocument([...declaredRoutes(documented), ...docs.routes], {
        info: {
          title: 'Paste service',
          version: '1.0.0',
          description: 'Share text and code with a link. Errors answer `{ "error": "..." }` with the status listed.',
        },
        securitySchemes,
      })),
  );
  return { name: 'api-docs', staticFiles: [{ path: '/', handler: docs.assets }], routes: docs.routes };
}
