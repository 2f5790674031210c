import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '@app/http/testing';

const root = path.resolve(import.meta.dirname, '../../..');
const PUBLIC_URL = 'https://paste.example.com';
const VARIABLES = [
  'OAUTH_AUTHORIZATION_URL',
  'OAUTH_TOKEN_URL',
  'OAUTH_USERINFO_URL',
  'OAUTH_CLIENT_ID',
  'OAUTH_CLIENT_SECRET',
];

/**
 * `npm run build`'s bundle run the way production runs it: `node apps/paste/dist/main.js`, its
 * own process, NODE_ENV=production on the embedded database in a fresh data folder, with neither
 * SESSION_SECRET nor any OAUTH_* variable (only what is listed here reaches the process).
 */
describe('the built paste service in production, as a fresh install', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paste-production-'));
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    PASTE_PORT: '0',
    PASTE_PUBLIC_URL: PUBLIC_URL,
    LOG_LEVEL: 'info',
  };
  const start = () =>
    startServiceProcess({ script: path.join(root, 'apps/paste/dist/main.js'), env, cwd: os.tmpdir() });
  let service: ServiceProcess;

  beforeAll(async () => {
    const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs'), 'paste'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(build.stderr).toBe('');
    expect(build.status).toBe(0);
    service = await start();
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is ready: the database is migrated and /readyz answers 200', async () => {
    const ready = await request(service.url).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('made its session secret once, in DATA_DIR/paste-session-secret with mode 0600, and logged where', () => {
    const file = path.join(dataDir, 'paste-session-secret');
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(
      service
        .logs()
        .some((entry) =>
          String(entry.msg).startsWith(`SESSION_SECRET is not set: generated a random one and stored it in ${file}`),
        ),
    ).toBe(true);
  });

  it('logs at start-up which OAUTH_* variables to set and the callback URL to register', () => {
    const warning = service.logs().find((entry) => String(entry.msg).startsWith('Sign-in is not configured'));
    expect(warning).toMatchObject({ variables: VARIABLES, callbackUrl: `${PUBLIC_URL}/auth/idp/callback` });
  });

  it.each(['/auth/idp', '/auth/idp/callback?code=abc&state=def'])(
    'answers %s with 503 naming the variables and the callback URL',
    async (route) => {
      const response = await request(service.url).get(route);
      expect(response.status).toBe(503);
      expect(response.body.variables).toEqual(VARIABLES);
      expect(response.body.callbackUrl).toBe(`${PUBLIC_URL}/auth/idp/callback`);
      expect(response.body.error).toContain(`set ${VARIABLES.slice(0, 4).join(', ')} and OAUTH_CLIENT_SECRET`);
    },
  );

  it('serves everything else: the home page, its static files, and pastes through the API', async () => {
    const home = await request(service.url).get('/');
    expect(home.status).toBe(200);
    expect(home.headers['content-type']).toMatch(/^text\/html/);
    // public/ resolved from dist/ as it was from src/.
    const script = await request(service.url).get('/static/app.js');
    expect(script.status).toBe(200);
    expect(script.text).toBe(readFileSync(path.join(root, 'apps/paste/public/app.js'), 'utf8'));
    // The views and the shared UI kit, found from the bundle as from the sources.
    expect(home.text).toContain('id="paste-form"');
    const kit = await request(service.url).get('/static/ui/ui.css');
    expect(kit.status).toBe(200);
    expect(kit.text).toBe(readFileSync(path.join(root, 'packages/ui/assets/ui.css'), 'utf8'));
    expect((await request(service.url).get('/openapi.json')).body.openapi).toBe('3.1.0');
    const missing = await request(service.url).get('/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Page not found');

    const created = await request(service.url).post('/api/paste').send({ content: 'built and running' });
    expect(created.status).toBe(200);
    const raw = await request(service.url).get(`/paste/${created.body.slug}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.text).toBe('built and running');
  });

  it('stops on SIGTERM with exit code 0, and on the next start reuses its secret and keeps its pastes', async () => {
    const created = await request(service.url).post('/api/paste').send({ content: 'kept across restarts' });
    const secret = readFileSync(path.join(dataDir, 'paste-session-secret'), 'utf8');
    expect(await service.stop()).toBe(0);

    service = await start();
    expect(readFileSync(path.join(dataDir, 'paste-session-secret'), 'utf8')).toBe(secret);
    expect(
      service
        .logs()
        .some((entry) => String(entry.msg).startsWith('SESSION_SECRET is not set: using the one generated earlier')),
    ).toBe(true);
    const raw = await request(service.url).get(`/paste/${created.body.slug}/raw`);
    expect(raw.text).toBe('kept across restarts');
  });
});
