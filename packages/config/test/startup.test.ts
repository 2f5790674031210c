import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

function start(script: string, env: Record<string, string | undefined>) {
  return spawnSync(tsx, [path.join(root, script)], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('start-up with a bad environment', () => {
  it.each([
    {
      name: 'npm start with a port that is not a number',
      script: 'scripts/start.ts',
      env: { PASTE_PORT: 'eighty' },
      variable: 'PASTE_PORT',
    },
    {
      name: 'the paste service with a bad database URL',
      script: 'apps/paste/src/main.ts',
      env: { DATABASE_URL: 'not-a-url' },
      variable: 'DATABASE_URL',
    },
    {
      name: 'the license service with a client id but no provider URLs',
      script: 'apps/license/src/main.ts',
      env: { NODE_ENV: 'production', OAUTH_CLIENT_ID: 'client', OAUTH_TOKEN_URL: '' },
      variable: 'OAUTH_TOKEN_URL',
    },
  ])('$name stops with exit code 1 and names the variable', ({ script, env, variable }) => {
    const result = start(script, env);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(variable);
  });
});
