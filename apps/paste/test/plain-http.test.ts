import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkSignIn } from '@app/auth/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { createLogger } from '@app/http';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// In production the session cookie is Secure, so over plain http no sign-in can work: the
// service says so in its log at start and on the page a failed sign-in lands on.
describe(`the paste service in production on a plain-http public URL (${testDatabaseBackend()})`, () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite(undefined, {
      env: { NODE_ENV: 'production' },
      logger: createLogger({ level: 'info', destination, name: 'paste' }),
    });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('logs at start that sign-in cookies need https, naming TRUST_PROXY', () => {
    const warnings = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((entry) => entry.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toContain('Sign-in cookies need https');
    expect(warnings[0]!.msg).toContain(`the public URL ${site.baseUrl} is plain http`);
    expect(warnings[0]!.msg).toContain('TRUST_PROXY');
  });

  it('a sign-in through the identity provider fails with a page saying the cookie could not be set over http', async () => {
    const { endedAt } = await walkSignIn(site.baseUrl, OWNER_ID);
    expect(endedAt.pathname + endedAt.search).toBe('/?error=https_required');
    const page = await site.http.get(endedAt.pathname + endedAt.search);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Sign-in failed: the sign-in cookie could not be set over plain http.');
    expect(page.text).toContain('https://');
    expect(page.text).toContain('TRUST_PROXY');
  });
});
