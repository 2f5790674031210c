// Installs the workspace's dependencies with the pinned pnpm when they are missing or older
// than the lock file, so that `npm test` and `npm start` work in a fresh clone.
// pnpm is fetched through npx: corepack's signature check fails on this Node.
import { execSync } from 'node:child_process';
import { existsSync, statSync, readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const marker = `${root}node_modules/.modules.yaml`;
const lock = `${root}pnpm-lock.yaml`;
const fresh = existsSync(marker) && existsSync(lock) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
if (!fresh) {
  const { packageManager } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
  const frozen = process.env.CI ? ' --frozen-lockfile' : '';
  console.log(`Installing dependencies with ${packageManager} ...`);
  execSync(`npx --yes ${packageManager} install${frozen}`, { cwd: root, stdio: 'inherit' });
}
