import path from 'node:path';

// Resolved from this file, at the top of src/: `npm run build` bundles src into dist/main.js, one
// level below the app like src/, so these paths hold in both.
export const publicDir = path.resolve(import.meta.dirname, '../public');
export const migrationsFolder = path.resolve(import.meta.dirname, '../drizzle');
export const viewsDir = path.resolve(import.meta.dirname, '../views');
/**
 * The encrypted paste format, one file shared with the command line (packages/paste-cli): the
 * pages load it as /static/envelope.js.
 */
export const envelopeModule = path.resolve(import.meta.dirname, '../../../packages/paste-cli/src/envelope.js');
/** The chunked file format of attachments (same package), loaded as /static/file-stream.js. */
export const fileStreamModule = path.resolve(import.meta.dirname, '../../../packages/paste-cli/src/file-stream.js');
/** The pages' messages, one `<lang>.json` per language. */
export const localesDir = path.resolve(import.meta.dirname, '../locales');
