import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '@app/http/testing';

const root = path.resolve(import.meta.dirname, '../../..');
const PUBLIC_URL = 'https://licenses.example.com';
const VARIABLES = [
  'OAUTH_AUTHORIZATION_URL',
  'OAUTH_TOKEN_URL',
  'OAUTH_USERINFO_URL',
  'OAUTH_CLIENT_ID',
  'OAUTH_CLIENT_SECRET',
];

/**
 * `npm run build`'s bundle run the way production runs it: `node apps/license/dist/main.js`, its
 * own process, NODE_ENV=production on the embedded database in a fresh data folder, with neither
 * SESSION_SECRET nor any OAUTH_* variable (only what is listed here reaches the process).
 */
describe('the built license service in production, as a fresh install', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'license-production-'));
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    LICENSE_PORT: '0',
    LICENSE_PUBLIC_URL: PUBLIC_URL,
    LOG_LEVEL: 'info',
  };
  let service: ServiceProcess;

  beforeAll(async () => {
    const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs'), 'license'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(build.stderr).toBe('');
    expect(build.status).toBe(0);
    service = await startServiceProcess({
      script: path.join(root, 'apps/license/dist/main.js'),
      env,
      cwd: os.tmpdir(),
    });
  });
  afterAll(async () => {
    // Stops gracefully: exit code 0 after the job queue and the database closed.
    expect(await service?.stop()).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is ready: the database is migrated and /readyz answers 200', async () => {
    const ready = await request(service.url).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('made its session secret once, in DATA_DIR/license-session-secret with mode 0600, and logged where', () => {
    const file = path.join(dataDir, 'license-session-secret');
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

  it('answers sign-in with 503 naming the variables and the callback URL, and logged the same at start-up', async () => {
    const response = await request(service.url).get('/auth/idp');
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({
      success: false,
      variables: VARIABLES,
      callbackUrl: `${PUBLIC_URL}/auth/idp/callback`,
    });
    expect(response.body.error).toContain(`set ${VARIABLES.slice(0, 4).join(', ')} and OAUTH_CLIENT_SECRET`);
    const warning = service.logs().find((entry) => String(entry.msg).startsWith('Sign-in is not configured'));
    expect(warning).toMatchObject({ msg: response.body.error, variables: VARIABLES });
  });

  it("serves everything else: the dashboard from its views, the UI kit and the dashboard's assets, the public key, license validation", async () => {
    const dashboard = await request(service.url).get('/');
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers['content-type']).toMatch(/^text\/html/);
    // The views folder and the UI kit were found from the bundle.
    expect(dashboard.text).toContain('href="/auth/idp">Sign in</a>');
    expect(dashboard.text).toContain('<link rel="stylesheet" href="/static/ui/ui.css">');
    const kit = await request(service.url).get('/static/ui/ui.css');
    expect(kit.status).toBe(200);
    expect(kit.text).toBe(readFileSync(path.join(root, 'packages/ui/assets/ui.css'), 'utf8'));
    const notFound = await request(service.url).get('/no/such/page');
    expect(notFound.status).toBe(404);
    expect(notFound.text).toContain('<h1>Page not found</h1>');
    // Assets beside a module deep in src/ were copied next to the bundle.
    const css = await request(service.url).get('/dashboard-assets/dashboard.css');
    expect(css.status).toBe(200);
    expect(css.text).toBe(readFileSync(path.join(root, 'apps/license/src/dashboard/assets/dashboard.css'), 'utf8'));

    const key = await request(service.url).get('/api/license/public-key');
    expect(key.status).toBe(200);
    expect(key.body.publicKey).toContain('BEGIN PUBLIC KEY');
    const validation = await request(service.url).post('/api/license/validate').send({ key: 'NO-SUCH-KEY' });
    expect(validation.status).toBe(400);
    expect(validation.body).toMatchObject({ success: false, valid: false, error: 'License not found' });
  });
});
