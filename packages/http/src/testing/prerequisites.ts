import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Whether a test file can run what it needs from the machine. When something is missing, a
 * fresh clone's `npm test` skips those tests and says so in one line (never silently); in CI
 * (`CI=true`) the missing thing fails the run instead, so a broken CI machine cannot pass by
 * skipping.
 *
 * @param what   the tests concerned, e.g. 'browser tests'
 * @param missing why they cannot run, with what to do about it; `undefined` when nothing is missing
 */
export function requireForTests(what: string, missing: string | undefined): boolean {
  if (missing === undefined) return true;
  if (isCi()) throw new Error(`${what} cannot run: ${missing} (CI=true requires it)`);
  // Straight to the terminal: vitest shows a test file's console output only around its tests.
  process.stderr.write(`skipped: ${what} (${missing})\n`);
  return false;
}

function isCi(): boolean {
  const value = process.env.CI?.toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

const CHROMIUM_HINT = "install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH";

/**
 * Finds a Chromium to drive with playwright-core: `CHROMIUM_PATH`, else `chromium` or
 * `chromium-browser` on the PATH, else /usr/bin/chromium. `CHROMIUM_PATH=none` pretends there is
 * none (to see what a machine without one does).
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): { path: string } | { missing: string } {
  const configured = env.CHROMIUM_PATH?.trim();
  if (configured === 'none') return { missing: `CHROMIUM_PATH=none: ${CHROMIUM_HINT}` };
  if (configured) {
    return isExecutable(configured)
      ? { path: configured }
      : { missing: `CHROMIUM_PATH=${configured} is not an executable file` };
  }
  const folders = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of ['chromium', 'chromium-browser']) {
    for (const folder of folders) {
      const candidate = path.join(folder, name);
      if (isExecutable(candidate)) return { path: candidate };
    }
  }
  if (isExecutable('/usr/bin/chromium')) return { path: '/usr/bin/chromium' };
  return { missing: `no Chromium found: ${CHROMIUM_HINT}` };
}

/**
 * The Chromium for a file of browser tests, or `undefined` after printing the one skip line
 * (failing instead under CI=true). Use it as `describe.skipIf(!executablePath)`.
 */
export function chromiumForTests(what = 'browser tests'): string | undefined {
  const found = findChromium();
  return requireForTests(what, 'missing' in found ? found.missing : undefined) && 'path' in found
    ? found.path
    : undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
