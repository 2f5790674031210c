import { html, raw, type Raw } from '@app/http';
import type { PasteSettings } from '../settings/settings.schema.js';
import { DEFAULT_FAVICON, DEFAULT_LOGO } from '../settings/settings.schema.js';

// The escaping template lives in @app/http (both services render pages with it).
export { escapeHtml, html, raw, Raw } from '@app/http';

const hexColor = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
// Only our own paths reach an src/href: the defaults and the upload folder.
const localAsset = /^\/(?:static|uploads\/images)\/[A-Za-z0-9._-]+$/;

const safeColor = (value: string, fallback: string) => (hexColor.test(value) ? value : fallback);
const safeAsset = (value: string, fallback: string) => (localAsset.test(value) ? value : fallback);

export interface LayoutOptions {
  title: string;
  body: Raw;
  /** Adds the page script (static file; the CSP allows no inline scripts). */
  script?: boolean;
  bodyClass?: string;
}

/** The page frame: branding from the settings, all of it escaped or validated. */
export function layout(settings: PasteSettings, options: LayoutOptions): string {
  const primary = safeColor(settings.primaryColor, '#2563eb');
  const secondary = safeColor(settings.secondaryColor, '#0f172a');
  const logo = safeAsset(settings.logo, DEFAULT_LOGO);
  const favicon = safeAsset(settings.favIcon, DEFAULT_FAVICON);
  const title = options.title ? `${options.title} · ${settings.siteName}` : settings.siteName;
  return '<!doctype html>\n' + html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="${settings.siteDescription}">
<link rel="icon" href="${favicon}">
<link rel="stylesheet" href="/static/style.css">
<style>:root{--primary:${raw(primary)};--secondary:${raw(secondary)}}</style>
${options.script ? raw('<script src="/static/app.js" defer></script>') : ''}
</head>
<body class="${options.bodyClass ?? ''}">
<header class="site-header">
  <a class="brand" href="/">
    <img class="brand-logo" src="${logo}" alt="" width="32" height="32">
    <span class="brand-text"><span class="site-name">${settings.siteName}</span>
    <span class="site-description">${settings.siteDescription}</span></span>
  </a>
  <nav><a class="button button-ghost" href="/">New paste</a></nav>
</header>
<main class="container">
${options.body}
</main>
<footer class="site-footer">${settings.siteName} · <a href="/admin">Owner</a></footer>
</body>
</html>
`.html;
}
