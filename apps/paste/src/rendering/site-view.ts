import type { PasteSettings } from '../settings/settings.schema.js';
import { DEFAULT_FAVICON, DEFAULT_LOGO } from '../settings/settings.schema.js';

const hexColor = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
// Only our own paths reach an src/href: the defaults and the upload folder.
const localAsset = /^\/(?:static|uploads\/images)\/[A-Za-z0-9._-]+$/;

const safeColor = (value: string, fallback: string) => (hexColor.test(value) ? value : fallback);
const safeAsset = (value: string, fallback: string) => (localAsset.test(value) ? value : fallback);

/** The branding every page's layout shows: text escaped by the view, colours and paths checked here. */
export interface SiteView {
  name: string;
  description: string;
  logo: string;
  favicon: string;
  primaryColor: string;
  secondaryColor: string;
}

export function siteView(settings: PasteSettings): SiteView {
  return {
    name: settings.siteName,
    description: settings.siteDescription,
    logo: safeAsset(settings.logo, DEFAULT_LOGO),
    favicon: safeAsset(settings.favIcon, DEFAULT_FAVICON),
    primaryColor: safeColor(settings.primaryColor, '#2563eb'),
    secondaryColor: safeColor(settings.secondaryColor, '#0f172a'),
  };
}

/** `2025-01-31 14:05`, UTC. */
export function shortDate(value: Date): string {
  return value.toISOString().slice(0, 16).replace('T', ' ');
}
