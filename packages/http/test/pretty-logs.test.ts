import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, wantsPrettyLogs } from '../src/logger.js';
import { requireForTests } from '../src/testing/prerequisites.js';

const root = path.resolve(import.meta.dirname, '../../..');

describe('development logs are readable in a terminal, JSON everywhere else', () => {
  it.each([
    { name: 'a terminal in development', nodeEnv: 'development', isTTY: true, pretty: true },
    { name: 'a terminal without NODE_ENV', nodeEnv: undefined, isTTY: true, pretty: true },
    { name: 'a terminal in production', nodeEnv: 'production', isTTY: true, pretty: false },
    { name: 'a pipe in development', nodeEnv: 'development', isTTY: false, pretty: false },
    { name: 'a pipe in production', nodeEnv: 'production', isTTY: undefined, pretty: false },
  ])('$name: pretty is $pretty', ({ nodeEnv, isTTY, pretty }) => {
    expect(wantsPrettyLogs(nodeEnv, { isTTY })).toBe(pretty);
  });

  it('a pretty line still has its credentials redacted and masked', () => {
    const text: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        text.push(String(chunk));
        callback();
      },
    });
    const logger = createLogger({
      level: 'info',
      destination,
      pretty: true,
      maskLine: (line) => line.replaceAll('LIC-SECRET-1234', 'LIC-…1234'),
    });
    logger.info(
      { req: { headers: { cookie: 'sid=cookie-secret', 'x-api-key': 'pk_key-secret' } }, key: 'LIC-SECRET-1234' },
      'request completed',
    );
    const output = text.join('');
    expect(output).toContain('INFO');
    expect(output).toContain('request completed');
    expect(output).not.toMatch(/^\{"level"/);
    expect(output).toContain('[redacted]');
    expect(output).toContain('LIC-…1234');
    for (const secret of ['cookie-secret', 'pk_key-secret', 'LIC-SECRET-1234']) expect(output).not.toContain(secret);
  });

  // The real thing: a process whose standard output is a terminal (util-linux `script` gives it
  // one) or a pipe, with and without NODE_ENV=production.
  const logOnce = `import { createLogger } from './packages/http/src/index.ts';
createLogger({ name: 'paste' }).info({ req: { headers: { authorization: 'Bearer tty-secret' } } }, 'service started');`;
  const tsx = path.join(root, 'node_modules/.bin/tsx');
  const run = (nodeEnv: string, terminal: boolean) => {
    const env = { ...process.env, NODE_ENV: nodeEnv, LOG_ONCE: logOnce };
    const result = terminal
      ? spawnSync('script', ['-qec', `${tsx} --eval "$LOG_ONCE"`, '/dev/null'], { cwd: root, env, encoding: 'utf8' })
      : spawnSync(tsx, ['--eval', logOnce], { cwd: root, env, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    return result.stdout;
  };
  const hasScript = requireForTests(
    'pretty logs in a terminal',
    spawnSync('script', ['--version']).status === 0
      ? undefined
      : 'no util-linux `script` on the PATH: apt-get install util-linux',
  );

  it.skipIf(!hasScript)('npm start in a terminal: readable lines, secrets still redacted', () => {
    const output = run('development', true);
    expect(output).toContain('service started');
    expect(output).not.toContain('{"level"');
    expect(output).toContain('[redacted]');
    expect(output).not.toContain('tty-secret');
  });

  it.skipIf(!hasScript)('production in a terminal: JSON', () => {
    const line = JSON.parse(run('production', true).trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, name: 'paste', msg: 'service started' });
  });

  it('development into a pipe (docker logs, a file): JSON', () => {
    const line = JSON.parse(run('development', false).trim()) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 30,
      name: 'paste',
      msg: 'service started',
      req: { headers: { authorization: '[redacted]' } },
    });
  });
});
