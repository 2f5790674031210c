import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { createLogger } from '@app/http';
import { jobSchedules } from '../src/jobs/jobs.service.js';
import { OBJECT_REMOVAL_JOB, ORPHAN_SWEEP_JOB } from '../src/distribution/distribution.module.js';
import { startLicenseService } from '../src/service.js';

// The service as main.ts starts it (startService of @app/http): the database opened and
// migrated, the job queue, the app, its modules' event handlers and jobs, the port; and stop()
// as SIGTERM does it. On PostgreSQL (TEST_DATABASE_URL) it opens a new empty database by its
// URL (the service migrates it), else the embedded database in a fresh data folder.
describe('startLicenseService', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'license-service-'));
  const lines: string[] = [];
  const serverUrl = process.env.TEST_DATABASE_URL;
  const databaseName = `service_test_${process.pid}_${Date.now()}`;
  const onServer = async (statement: string) => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(statement).finally(() => admin.end());
  };
  let started: Awaited<ReturnType<typeof startLicenseService>>;

  beforeAll(async () => {
    let databaseUrl: string | undefined;
    if (serverUrl) {
      await onServer(`CREATE DATABASE ${databaseName}`);
      const url = new URL(serverUrl);
      url.pathname = `/${databaseName}`;
      databaseUrl = url.toString();
    }
    const unused = 'http://127.0.0.1:9/unused';
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      ...(databaseUrl ? { LICENSE_DATABASE_URL: databaseUrl } : {}),
      OAUTH_CLIENT_ID: 'test',
      OAUTH_CLIENT_SECRET: 'test',
      OAUTH_AUTHORIZATION_URL: unused,
      OAUTH_TOKEN_URL: unused,
      OAUTH_USERINFO_URL: unused,
    });
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    started = await startLicenseService(config, { logger, port: 0, handleSignals: false });
  }, 120_000);

  afterAll(async () => {
    if (serverUrl) await onServer(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('listens, with the modules started: the scheduled scans are on the queue', async () => {
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
    const { rows } = await started.database.pool.query<{ name: string }>('SELECT name FROM pgboss_license.schedule');
    // The scans, and the releases' removal of deleted artifacts' objects and their orphan sweep.
    expect(rows.map((row) => row.name).sort()).toEqual(
      [...Object.keys(jobSchedules), OBJECT_REMOVAL_JOB, ORPHAN_SWEEP_JOB].sort(),
    );
    const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toContain(`license service listening on port ${started.running.port}`);
  });

  it('stops: the port closes and the database with it, and it says so once', async () => {
    await started.stop();
    await expect(fetch(`${started.url}/healthz`)).rejects.toThrow();
    await expect(started.database.pool.query('SELECT 1')).rejects.toThrow();
    const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages.filter((message) => message === 'license service stopped')).toHaveLength(1);
  });
});
