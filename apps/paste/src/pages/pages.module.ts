import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import type { SettingsStore } from '@app/settings';
import type { FeatureModule } from '@app/http';
import { UI_STATIC_PATH, uiStatic } from '@app/ui';
import type { ApiKeyService } from '../api-keys/api-keys.service.js';
import type { PasteGuards } from '../access/guards.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import type { StatsService } from '../stats/stats.service.js';
import type { ModerationService } from '../moderation/moderation.service.js';
import { adminRoutes } from './admin.routes.js';
import { envelopeModule, fileStreamModule, publicDir } from '../paths.js';
import { faviconRoute, pageRoutes } from './pages.routes.js';

const resolvePackage = createRequire(import.meta.url).resolve;

/**
 * What an encrypted paste's page renders with, served from node_modules (no CDN): the browser
 * builds of the libraries the server renders plain pastes with (markdown-it, highlight.js of the
 * same version), and DOMPurify as the second wall in place of sanitize-html.
 */
const vendorFolders = [
  { path: '/static/vendor/markdown-it', dir: path.join(path.dirname(resolvePackage('markdown-it')), 'browser') },
  { path: '/static/vendor/dompurify', dir: path.dirname(resolvePackage('dompurify')) },
  { path: '/static/vendor/highlight', dir: path.dirname(resolvePackage('@highlightjs/cdn-assets/package.json')) },
  // qrcode's browser build (qrcode.js), which draws the QR code of an encrypted paste's whole link
  // (its key included) on the creator's page: the key never reaches the server. qrcode is pinned to
  // 1.5.1, the last release whose package ships build/ (1.5.2 to 1.5.4 leave it out); the server
  // draws plain pastes' codes with the same package.
  { path: '/static/vendor/qrcode', dir: path.join(path.dirname(resolvePackage('qrcode/package.json')), 'build') },
];

const sendFile =
  (file: string): RequestHandler =>
  (req, res, next) => {
    if (req.path !== '/' || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    res.sendFile(file, { maxAge: '1h' });
  };

/** The home page and the owner's dashboard, and the files pages load (served before the session). */
export function pagesModules(deps: {
  settings: SettingsStore<PasteSettings>;
  stats: StatsService;
  apiKeys: ApiKeyService;
  moderation: ModerationService;
  guards: PasteGuards;
  now: () => Date;
}): FeatureModule[] {
  const assets: FeatureModule = {
    name: 'page-assets',
    stage: 'sessionless',
    routes: [faviconRoute(deps.settings)],
    routers: [
      { path: UI_STATIC_PATH, handler: uiStatic() },
      { path: '/static/envelope.js', handler: sendFile(envelopeModule) },
      { path: '/static/file-stream.js', handler: sendFile(fileStreamModule) },
      ...vendorFolders.map(({ path: at, dir }) => ({
        path: at,
        handler: express.static(dir, { index: false, maxAge: '1h' }),
      })),
      { path: '/static', handler: express.static(publicDir, { index: false, maxAge: '1h' }) },
    ],
  };
  return [assets, { name: 'pages', routes: [...pageRoutes(deps), ...adminRoutes(deps)] }];
}
