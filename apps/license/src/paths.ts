import path from 'node:path';

// Resolved from this file, at the top of src/: `npm run build` bundles src into dist/main.js, one
// level below the app like src/, so these paths hold in both.
export const viewsDir = path.resolve(import.meta.dirname, '../views');
/** The message files of the pages, emails and notifications, one `<language>.json` each. */
export const localesDir = path.resolve(import.meta.dirname, '../locales');
