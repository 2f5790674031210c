import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// A second `npm start` (or a service started twice) finds its ports taken. It says so in
// one line naming the variable to change, exits non-zero, and leaves nothing behind: no stack
// trace, no embedded database socket folder (pglite-*) in the temporary folder.

const root = path.resolve(import.meta.dirname, '..');

/** A port held by a listener, as another running service would hold it. */
async function takePort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function freePort(): Promise<number> {
  const taken = await takePort();
  await taken.release();
  return taken.port;
}

/** Runs a TypeScript entry point the way npm start does; answers its exit code and what it printed. */
function run(entry: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a port already in use', () => {
  let tmp: string;
  let dataDir: string;
  let held: Awaited<ReturnType<typeof takePort>>;
  /** A new user's shell with its own temporary folder (TMPDIR), so what is left there is ours. */
  const environment = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {};
    const serviceSetting =
      /^(OAUTH_|JWT_|PASTE_|LICENSE_|DEV_IDP_|SESSION_)|^(PORT|DATABASE_URL|TEST_DATABASE_URL|REDIS_URL|OWNER_ID|ADMIN_IDS|DATA_DIR|NODE_ENV|LOG_LEVEL)$/;
    for (const [name, value] of Object.entries(process.env)) if (!serviceSetting.test(name)) env[name] = value;
    return { ...env, NODE_ENV: 'development', LOG_LEVEL: 'warn', TMPDIR: tmp, DATA_DIR: dataDir, ...extra };
  };

  beforeAll(async () => {
    held = await takePort();
  });
  afterAll(async () => {
    await held?.release();
  });
  afterEach(() => {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  const fresh = () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'port-in-use-tmp-'));
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'port-in-use-data-'));
  };

  it("npm start, the development provider's port taken: one line naming DEV_IDP_PORT, exit 1, nothing left", async () => {
    fresh();
    const result = await run(
      'scripts/start.ts',
      environment({
        DEV_IDP_PORT: String(held.port),
        PASTE_PORT: String(await freePort()),
        LICENSE_PORT: String(await freePort()),
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `Port ${held.port} is in use: another npm start may be running. Stop it, or set DEV_IDP_PORT to a free port (e.g. DEV_IDP_PORT=${held.port + 1}).`,
    );
    expect(result.stderr).not.toContain('EADDRINUSE');
    expect(readdirSync(tmp).filter((name) => name.startsWith('pglite-'))).toEqual([]);
  }, 60_000);

  it("the paste service alone, its development provider's port taken: the same line, no database opened", async () => {
    fresh();
    const result = await run(
      'apps/paste/src/main.ts',
      environment({ DEV_IDP_PORT: String(held.port), PASTE_PORT: String(await freePort()) }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      new RegExp(
        `^Port ${held.port} is in use: another npm start may be running\\. Stop it, or set DEV_IDP_PORT to a free port`,
      ),
    );
    expect(result.stderr).not.toContain('    at ');
    expect(readdirSync(tmp).filter((name) => name.startsWith('pglite-'))).toEqual([]);
    expect(readdirSync(dataDir)).toEqual([]);
  }, 60_000);

  it('the paste service, its own port taken: one line naming PASTE_PORT; the embedded database closed, its socket folder gone', async () => {
    fresh();
    const result = await run(
      'apps/paste/src/main.ts',
      environment({ PASTE_PORT: String(held.port), DEV_IDP_PORT: String(await freePort()) }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      `Port ${held.port} is in use: another npm start may be running. Stop it, or set PASTE_PORT to a free port (e.g. PASTE_PORT=${held.port + 1}).`,
    );
    expect(result.stderr).not.toContain('    at ');
    expect(readdirSync(tmp).filter((name) => name.startsWith('pglite-'))).toEqual([]);
    // The data folder was made and migrated (the next start uses it), and its lock (paste.lock) released.
    expect(readdirSync(dataDir).filter((name) => name.startsWith('paste'))).toEqual(['paste']);
  }, 120_000);

  it('the license service, its own port taken: one line naming LICENSE_PORT; the embedded database closed, its socket folder gone', async () => {
    fresh();
    const result = await run(
      'apps/license/src/main.ts',
      environment({ LICENSE_PORT: String(held.port), DEV_IDP_PORT: String(await freePort()) }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      `Port ${held.port} is in use: another npm start may be running. Stop it, or set LICENSE_PORT to a free port (e.g. LICENSE_PORT=${held.port + 1}).`,
    );
    expect(result.stderr).not.toContain('    at ');
    expect(readdirSync(tmp).filter((name) => name.startsWith('pglite-'))).toEqual([]);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('license'))).toEqual(['license']);
  }, 120_000);
});
