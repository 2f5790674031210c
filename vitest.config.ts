import { defineConfig } from 'vitest/config';

// One project per package and app, so `npm test` runs them all and `vitest --project paste` one.
const folders = ['packages/config', 'packages/db', 'packages/http', 'packages/ui', 'packages/auth', 'packages/rate-limit',
  'packages/settings', 'packages/events', 'packages/dev-idp', 'packages/license-client', 'apps/paste', 'apps/license'];

export default defineConfig({
  test: {
    projects: [
      ...folders.map((folder) => ({
        test: {
          name: folder.split('/')[1],
          root: folder,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          globalSetup: ['../../packages/db/src/testing/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      })),
      // npm start's development defaults and the root README's quick start, run against a fresh npm start.
      { test: { name: 'scripts', root: 'scripts', include: ['*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000, pool: 'forks' } },
    ],
  },
});
