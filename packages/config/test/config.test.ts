import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/index.js';

describe('configuration', () => {
  it('fills the documented defaults', () => {
    const config = loadConfig({});
    expect(config.PASTE_PORT).toBe(8080);
    expect(config.licensePort).toBe(3000);
    expect(config.DATA_DIR).toBe('./data');
    expect(config.SESSION_TTL_HOURS).toBe(24);
    expect(config.PANIC_MODE).toBe(false);
    expect(config.ADMIN_IDS).toEqual([]);
  });

  it('prefers LICENSE_PORT over PORT', () => {
    expect(loadConfig({ PORT: '4000' }).licensePort).toBe(4000);
    expect(loadConfig({ PORT: '4000', LICENSE_PORT: '4001' }).licensePort).toBe(4001);
  });

  it('parses lists and booleans', () => {
    const config = loadConfig({ ADMIN_IDS: 'alice, bob,,', PANIC_MODE: 'true' });
    expect(config.ADMIN_IDS).toEqual(['alice', 'bob']);
    expect(config.PANIC_MODE).toBe(true);
  });

  it.each([
    { name: 'a port that is not a number', env: { PASTE_PORT: 'eighty' }, variable: 'PASTE_PORT' },
    { name: 'a database URL that is not a URL', env: { DATABASE_URL: 'not a url' }, variable: 'DATABASE_URL' },
    { name: 'an unknown NODE_ENV', env: { NODE_ENV: 'staging' }, variable: 'NODE_ENV' },
    { name: 'a client id without the provider URLs', env: { OAUTH_CLIENT_ID: 'client' }, variable: 'OAUTH_TOKEN_URL' },
  ])('names the variable when given $name', ({ env, variable }) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it('accepts production without SESSION_SECRET and without OAUTH_*: the services make a secret and explain sign-in', () => {
    const config = loadConfig({ NODE_ENV: 'production' });
    expect(config.SESSION_SECRET).toBeUndefined();
    expect(config.OAUTH_CLIENT_ID).toBeUndefined();
  });
});
