// Ad-hoc: the app's own (Node-side) cost, with a database stub that answers at once.
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync } from 'node:fs';
import { fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import express from 'express';
import autocannon from 'autocannon';
import { loadConfig } from '@app/config';
import { createLogger } from '@app/http';
import { createApp } from '../src/app.js';
import { pasteSettingsSchema } from '../src/settings/settings.schema.js';

if (process.argv.includes('--serve')) {
  const content = 'function add(a, b) {\n  return a + b;\n}\n'.repeat(6);
  const row = {
    old: 0,
    id: 1,
    slug: 'probe',
    content,
    viewsCount: 1e9,
    maxViews: null,
    createdAt: new Date(),
    expiresAt: null,
    hasPassword: false,
    title: null,
    language: 'auto',
  };
  // Views answer the probe paste; inserts answer every slug they were given.
  const pool = {
    query: (q: unknown) =>
      Promise.resolve(
        typeof q === 'string' && q.startsWith('SET LOCAL')
          ? [{ rows: [] }, { rows: [row] }]
          : { rows: ((q as { values?: unknown[][] }).values?.[0] ?? []).map((slug) => ({ slug })), rowCount: 1 },
      ),
  };
  const settingsValue = pasteSettingsSchema.parse({ webRateLimit: 1_000_000, apiRateLimit: 1_000_000 });
  const settings = {
    get: () => settingsValue,
    update: () => Promise.resolve(settingsValue),
    onChange: () => () => {},
    close: async () => {},
  };
  const u = 'http://127.0.0.1:9/x';
  const { app } = createApp({
    config: loadConfig({
      NODE_ENV: 'production',
      SESSION_SECRET: 'probe-secret-probe-secret-probe-secret',
      LOG_LEVEL: process.env.PROBE_LOG ?? 'warn',
    }),
    database: { pool } as never,
    settings: settings,
    logger: createLogger({ level: process.env.PROBE_LOG ?? 'warn' }),
    publicUrl: 'http://x',
    uploadDir: mkdtempSync(path.join(os.tmpdir(), 'u')),
    oauth: {
      authorizationURL: u,
      tokenURL: u,
      userInfoURL: u,
      clientID: 'a',
      clientSecret: 'b',
      scope: 's',
      idField: 'id',
      usernameField: 'username',
    },
  });
  const bare = express();
  bare.get('/', (_q, r) => {
    r.json({ ok: true });
  });
  const big = 'x'.repeat(Number(process.env.PROBE_SIZE ?? 3500));
  bare.get('/big', (_q, r) => {
    r.type('html').send(big);
  });
  const listen = (h: express.Express) =>
    new Promise<number>((res) => {
      const s = h.listen(0, '127.0.0.1', () => res((s.address() as AddressInfo).port));
    });
  process.on('SIGINT', () => process.exit(0));
  process.send?.({ paste: await listen(app), bare: await listen(bare) });
} else {
  const prof = process.env.PROBE_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROBE_PROFILE}`] : [];
  const child = fork(import.meta.filename, ['--serve'], { execArgv: ['--import', 'tsx', ...prof] });
  const ports = await new Promise<{ paste: number; bare: number }>((res) =>
    child.once('message', (m) => res(m as never)),
  );
  for (const [name, opts] of [
    ['bare', { url: `http://127.0.0.1:${ports.bare}/` }],
    ['bare big', { url: `http://127.0.0.1:${ports.bare}/big` }],
    ['GET paste (db stub)', { url: `http://127.0.0.1:${ports.paste}/paste/probe` }],
    [
      'POST paste (db stub)',
      {
        url: `http://127.0.0.1:${ports.paste}/api/paste`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"content":"hello"}',
      },
    ],
    ['healthz (db stub)', { url: `http://127.0.0.1:${ports.paste}/healthz` }],
  ] as const) {
    if (process.env.PROBE_ONLY && !name.startsWith(process.env.PROBE_ONLY)) continue;
    await autocannon({ ...opts, connections: 32, duration: 2 });
    const r = await autocannon({ ...opts, connections: 32, duration: 5 });
    console.log(name, Math.round(r.requests.average), r.latency.p50, r.latency.p99, r.non2xx);
  }
  child.kill('SIGINT');
  await new Promise((res) => child.once('exit', res));
}
