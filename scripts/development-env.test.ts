import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { applyDevelopmentDefaults, developmentJwtSecretFile } from './development-env.js';

const root = path.resolve(import.meta.dirname, '..');
const folders: string[] = [];
const dataDir = () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'dev-env-'));
  folders.push(folder);
  return folder;
};
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("npm start's development defaults", () => {
  it('sets the owner, the admin and a JWT secret kept in DATA_DIR, the same on the next start', () => {
    const DATA_DIR = dataDir();
    const first: NodeJS.ProcessEnv = {};
    applyDevelopmentDefaults(first, { NODE_ENV: 'development', DATA_DIR });
    expect(first).toMatchObject({ OWNER_ID: 'owner', ADMIN_IDS: 'admin' });
    expect(first.JWT_SECRET).toMatch(/^[\w-]{64}$/);
    const file = developmentJwtSecretFile({ DATA_DIR });
    expect(readFileSync(file, 'utf8').trim()).toBe(first.JWT_SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const again: NodeJS.ProcessEnv = {};
    applyDevelopmentDefaults(again, { NODE_ENV: 'development', DATA_DIR });
    expect(again.JWT_SECRET).toBe(first.JWT_SECRET);
    const elsewhere: NodeJS.ProcessEnv = {};
    applyDevelopmentDefaults(elsewhere, { NODE_ENV: 'development', DATA_DIR: dataDir() });
    expect(elsewhere.JWT_SECRET).not.toBe(first.JWT_SECRET);
  });

  it('keeps what is configured: owner, admins, a JWT secret or public key', () => {
    const DATA_DIR = dataDir();
    const env: NodeJS.ProcessEnv = { OWNER_ID: 'me', ADMIN_IDS: 'ops,me', JWT_SECRET: 'mine' };
    applyDevelopmentDefaults(env, { NODE_ENV: 'development', DATA_DIR, JWT_SECRET: 'mine' });
    expect(env).toEqual({ OWNER_ID: 'me', ADMIN_IDS: 'ops,me', JWT_SECRET: 'mine' });
    const withKey: NodeJS.ProcessEnv = {};
    applyDevelopmentDefaults(withKey, {
      NODE_ENV: 'development',
      DATA_DIR,
      JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----',
    });
    expect(withKey.JWT_SECRET).toBeUndefined();
  });

  it('refuses to apply them in production', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(() => applyDevelopmentDefaults(env, { NODE_ENV: 'production', DATA_DIR: dataDir() })).toThrow(
      /never applied in production/,
    );
    expect(env).toEqual({});
  });

  it('npm run dev-token refuses to run in production, before asking anything', async () => {
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/dev-token.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', LICENSE_PORT: '9' },
    });
    const failure = await run.then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toBe('');
    expect(failure?.stderr).toContain('dev-token is for development only');
  });

  it('npm run dev-token says to start the services when nothing answers', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    server.close();
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/dev-token.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, NODE_ENV: 'development', LICENSE_PORT: String(port) },
    });
    const failure = await run.then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain(
      `nothing answers at http://localhost:${port}: start the services with npm start first`,
    );
  });
});
