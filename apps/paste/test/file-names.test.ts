import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// One naming rule (docs/conventions.md, "Names"): a feature folder's files of a role
// are named after the folder (`api-keys/api-keys.service.ts`, not `api-key.service.ts`); a second
// file of the same role is named for its part (`pastes/password-attempts.repository.ts`).
// access/, common/ and rendering/ are shared helpers, not features: their files say what they hold.

const src = path.resolve(import.meta.dirname, '../src');
const shared = new Set(['access', 'common', 'rendering']);
const roles = ['module', 'routes', 'service', 'repository', 'schema', 'table', 'presenter', 'page-data', 'job'];
const features = readdirSync(src, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !shared.has(entry.name))
  .map((entry) => entry.name);

describe('paste file names', () => {
  it.each(features)('%s/ names its files of each role after the folder', (folder) => {
    const files = readdirSync(path.join(src, folder));
    const misnamed = roles.flatMap((role) => {
      const ofRole = files.filter((file) => file.endsWith(`.${role}.ts`));
      return ofRole.length > 0 && !ofRole.includes(`${folder}.${role}.ts`) ? ofRole : [];
    });
    expect(misnamed).toEqual([]);
  });
});
