import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createLogger, healthRoutes, serveGracefully } from '../src/index.js';

const fixture = path.join(import.meta.dirname, 'fixtures/serve-slow-close.ts');
const tsxLoader = pathToFileURL(path.resolve(import.meta.dirname, '../../../node_modules/tsx/dist/loader.mjs')).href;

describe('serveGracefully in a real process', () => {
  it('finishes closing when the stop signal arrives three times (a process group killed, relayed by npm start and tsx)', async () => {
    const child = spawn(process.execPath, ['--import', tsxLoader, fixture], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.on('exit', (code, signal) => resolve({ code, signal }));
    });
    await new Promise<void>((resolve) => {
      const listening = () => {
        if (output.includes('"ready"')) {
          child.stdout.off('data', listening);
          resolve();
        }
      };
      child.stdout.on('data', listening);
    });
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGINT');
    child.kill('SIGTERM');

    expect(await exited).toEqual({ code: 0, signal: null });
    const messages = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg?: string })
      .map((entry) => entry.msg)
      .filter(Boolean);
    // The repeats are one stop: each line once (a terminal that sent Ctrl+C to the group sees no echo).
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatch(/^test service listening on port \d+$/);
    expect(messages[1]).toBe('test service shutting down');
    expect(messages[2]).toBe('test service stopped');
  });

  it('drains at shutdown: /readyz answers 503 while requests are still served, then the port closes', async () => {
    const app = express();
    app.use(healthRoutes({ query: () => Promise.resolve({ rows: [] }) } as never));
    app.get('/work', (_req, res) => {
      res.json({ done: true });
    });
    const running = await serveGracefully(app, {
      port: 0,
      host: '127.0.0.1',
      logger: createLogger({ level: 'silent' }),
      timeoutMs: 1000,
      name: 'drain test',
      onClosed: () => Promise.resolve(),
      handleSignals: false,
      drainMs: 400,
    });
    const url = `http://127.0.0.1:${running.port}`;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const stopped = running.stop();
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', error: 'Shutting down' });
    const work = await fetch(`${url}/work`);
    expect(work.status).toBe(200);
    expect(work.headers.get('connection')).toBe('close');
    await stopped;
    await expect(fetch(`${url}/work`)).rejects.toThrow();
  });
});
