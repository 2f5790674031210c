import { createOpenApiDocument, declaredRoutes, openApiRoutes, type FeatureModule } from '@app/http';
import { securitySchemes } from '../access/guards.js';

const openApiOptions = {
  info: {
    title: 'Paste service',
    version: '1.0.0',
    description: 'Share text and code with a link. Errors answer `{ "error": "..." }` with the status listed.',
  },
  securitySchemes,
};

/** Every route the modules declare, as the OpenAPI document lists them: the internal pages included (GET /openapi.json leaves those out). */
export const pasteOpenApiDocument = (modules: readonly FeatureModule[]) =>
  createOpenApiDocument(declaredRoutes(modules), openApiOptions);

/** `GET /openapi.json` and the reference page `GET /docs`, made from every module's declarations and their own. */
export function apiDocsModules(documented: readonly FeatureModule[]): FeatureModule[] {
  let document: Record<string, unknown> | undefined;
  const docs = openApiRoutes(
    () => (document ??= createOpenApiDocument([...declaredRoutes(documented), ...docs.routes], openApiOptions)),
  );
  return [
    // The reference page's script and styles: files, served before the session.
    { name: 'api-docs-assets', stage: 'sessionless', routes: [], routers: [docs.assets] },
    { name: 'api-docs', routes: docs.routes },
  ];
}
