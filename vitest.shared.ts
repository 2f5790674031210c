import path from 'node:path';
import { availableParallelism } from 'node:os';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The three suites (README, "Tests"):
 * - fast: `npm test`, every test but those below;
 * - slow: `npm run test:slow`, files named `*.slow.test.ts`, slow by nature (fault injection,
 *   long backlogs, fresh clusters on disk, real-time cron waits);
 * - browser: `npm run test:browser`, files named `*browser.test.ts`, driving Debian's chromium.
 */
export type Suite = 'fast' | 'slow' | 'browser';

// One project per package and app, so `vitest --project paste` runs one.
const folders = [
  'packages/config',
  'packages/db',
  'packages/http',
  'packages/ui',
  'packages/auth',
  'packages/rate-limit',
  'packages/settings',
  'packages/events',
  'packages/dev-idp',
  'packages/license-client',
  'packages/paste-cli',
  'packages/storage',
  'apps/paste',
  'apps/license',
];

// File names each suite takes, and leaves to the others.
const patterns: Record<Suite, { include: string; exclude: string[] }> = {
  fast: { include: '*.test.ts', exclude: ['**/*.slow.test.ts', '**/*browser.test.ts'] },
  slow: { include: '*.slow.test.ts', exclude: [] },
  browser: { include: '*browser.test.ts', exclude: [] },
};

/** Worker processes: `TEST_WORKERS`, else one per core (vitest's default leaves one core idle). */
function workers(suite: Suite): number {
  const fromEnv = Number(process.env.TEST_WORKERS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  // A browser test's chromium takes a core of its own beside the worker that drives it.
  const cores = availableParallelism();
  return suite === 'browser' ? Math.max(1, cores - 1) : cores;
}

export function suiteConfig(suite: Suite) {
  const { include, exclude } = patterns[suite];
  const project = (name: string, root: string, folders: string[]): TestProjectInlineConfiguration => ({
    test: {
      name,
      root,
      include: folders.map((folder) => `${folder}${include}`),
      exclude: ['**/node_modules/**', ...exclude],
      globalSetup: [`${'../'.repeat(root.split('/').length)}packages/db/src/testing/global-setup.ts`],
      // A browser test's pages are each audited for accessibility in two themes (seconds apiece on a busy machine).
      testTimeout: suite === 'browser' ? 60_000 : 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      // A worker keeps its loaded modules from one file to the next: importing the apps costs
      // seconds of CPU per file, and the compiled PGlite and signing keys are made once per worker.
      // Every test file builds its own app, database and servers, so no state is shared by design.
      isolate: false,
    },
  });
  return defineConfig({
    test: {
      // The browser suite's accessibility audits, summed up at the end (pages x themes, violations).
      ...(suite === 'browser' ? { globalSetup: ['packages/ui/src/testing/axe-summary.ts'] } : {}),
      maxWorkers: workers(suite),
      passWithNoTests: true,
      projects: [
        ...folders.map((folder) => project(path.basename(folder), folder, ['src/**/', 'test/**/'])),
        // npm start's development defaults and the root README's quick start, run against a fresh npm start.
        project('scripts', 'scripts', ['']),
      ],
    },
  });
}
