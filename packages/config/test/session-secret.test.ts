import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  describeSessionSecret,
  resolveSessionSecret,
  resolveSessionSecretInDatabase,
  sessionSecretFile,
} from '../src/index.js';

const dataDirs: string[] = [];
const freshDataDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'session-secret-'));
  dataDirs.push(dir);
  // A folder below the temporary one: the service creates DATA_DIR when it is missing.
  return path.join(dir, 'data');
};
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('the session secret', () => {
  it('is SESSION_SECRET when set, and nothing is written', () => {
    const DATA_DIR = freshDataDir();
    expect(resolveSessionSecret({ NODE_ENV: 'production', SESSION_SECRET: 'from-env', DATA_DIR }, 'paste')).toEqual({
      secret: 'from-env',
      source: 'configured',
    });
    expect(() => statSync(sessionSecretFile({ DATA_DIR }, 'paste'))).toThrow(/ENOENT/);
  });

  it('outside production without SESSION_SECRET is left to the development value', () => {
    expect(
      resolveSessionSecret({ NODE_ENV: 'development', SESSION_SECRET: undefined, DATA_DIR: freshDataDir() }, 'paste'),
    ).toEqual({ secret: undefined, source: 'development' });
  });

  it('in production without SESSION_SECRET is generated once, kept in DATA_DIR/<service>-session-secret with mode 0600, and reused', () => {
    const DATA_DIR = freshDataDir();
    const config = { NODE_ENV: 'production' as const, SESSION_SECRET: undefined, DATA_DIR };
    const first = resolveSessionSecret(config, 'license');
    const file = path.resolve(DATA_DIR, 'license-session-secret');
    expect(first).toMatchObject({ source: 'created', file });
    expect(first.secret).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(describeSessionSecret(first)).toContain(`generated a random one and stored it in ${file}`);

    const again = resolveSessionSecret(config, 'license');
    expect(again).toEqual({ secret: first.secret, source: 'stored', file });
    expect(describeSessionSecret(again)).toBe(
      `SESSION_SECRET is not set: using the one generated earlier, stored in ${file}`,
    );
    // Each service has its own.
    const paste = resolveSessionSecret(config, 'paste');
    expect(paste.source).toBe('created');
    expect(paste.secret).not.toBe(first.secret);
  });

  it('replaces an empty secret file (a write cut short) with a new secret, mode 0600', () => {
    const DATA_DIR = freshDataDir();
    const config = { NODE_ENV: 'production' as const, SESSION_SECRET: undefined, DATA_DIR };
    const file = resolveSessionSecret(config, 'paste').file!;
    rmSync(file);
    writeFileSync(file, '\n', { mode: 0o644 });
    const replaced = resolveSessionSecret(config, 'paste');
    expect(replaced.source).toBe('created');
    expect(readFileSync(file, 'utf8').trim()).toBe(replaced.secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('on a database server is offered to the database and the one kept there is used; nothing is written to DATA_DIR', async () => {
    let stored: string | undefined;
    const keep = (generate: () => string) => {
      const offered = generate();
      const created = stored === undefined;
      stored ??= offered;
      return Promise.resolve({ value: stored, created });
    };
    const config = { NODE_ENV: 'production' as const, SESSION_SECRET: undefined };
    const first = await resolveSessionSecretInDatabase(config, keep);
    expect(first.source).toBe('created-in-database');
    expect(first.secret).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(describeSessionSecret(first)).toContain('stored it in the database');
    expect(await resolveSessionSecretInDatabase(config, keep)).toEqual({
      secret: first.secret,
      source: 'stored-in-database',
    });
    expect(await resolveSessionSecretInDatabase({ ...config, SESSION_SECRET: 'from-env' }, keep)).toEqual({
      secret: 'from-env',
      source: 'configured',
    });
    expect(await resolveSessionSecretInDatabase({ NODE_ENV: 'development', SESSION_SECRET: undefined }, keep)).toEqual({
      secret: undefined,
      source: 'development',
    });
  });
});
