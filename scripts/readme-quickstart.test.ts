import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireForTests } from '../packages/http/src/testing/index.js';

// The root README's quick start, pasted as a new user pastes it: a fresh `npm start` (both
// services and the development identity provider, on the embedded database in a new data folder),
// then every ```sh block marked `<!-- run -->`, in order, in one bash, so the variables of one
// block reach the next. Only the ports differ: the README's 8080, 3000 and 9000 become free ones.

const root = path.resolve(import.meta.dirname, '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

/** The ```sh blocks of a markdown text that follow a `<!-- run -->` line, in order. */
export function blocksToRun(markdown: string): string[] {
  return [...markdown.matchAll(/^<!-- run -->[ \t]*\n```sh\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
}

function missingTool(): string | undefined {
  for (const tool of ['bash', 'curl']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      return `no ${tool} on the PATH: install ${tool}`;
    }
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** What a new user's shell has: none of this machine's service or test settings. */
function freshEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const serviceSetting =
    /^(OAUTH_|JWT_|PASTE_|LICENSE_|DEV_IDP_|SESSION_|WEBHOOK_|SMTP_|TWILIO_|TELEGRAM_|NOTIFY_|STRIPE_)|^(PORT|DATABASE_URL|TEST_DATABASE_URL|REDIS_URL|OWNER_ID|ADMIN_IDS|DATA_DIR|PANIC_MODE|TRUST_PROXY|NODE_ENV|LOG_LEVEL)$/;
  for (const [name, value] of Object.entries(process.env)) if (!serviceSetting.test(name)) env[name] = value;
  return { ...env, ...extra };
}

const canRun = requireForTests('the README quick start', missingTool());

describe.skipIf(!canRun)("the root README's quick start, pasted into a shell beside a fresh npm start", () => {
  const blocks = blocksToRun(readme);
  let dataDir: string;
  let services: ChildProcess;
  let output = '';
  let ports: { paste: number; license: number; idp: number };
  let env: NodeJS.ProcessEnv;
  let readyAfterMs: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quickstart-'));
    // `npm install -g` goes to a folder of the test's own, whose bin/ comes first on the PATH, as a
    // user's global npm folder does.
    const npmPrefix = path.join(dataDir, 'npm-global');
    ports = { paste: await freePort(), license: await freePort(), idp: await freePort() };
    env = freshEnvironment({
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      PASTE_PORT: String(ports.paste),
      LICENSE_PORT: String(ports.license),
      DEV_IDP_PORT: String(ports.idp),
      npm_config_prefix: npmPrefix,
      PATH: `${path.join(npmPrefix, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    });
    const started = Date.now();
    // `npm start` is `tsx scripts/start.ts` after installing what is missing; its own process group, to stop it whole.
    services = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: root,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    services.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    services.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const deadline = Date.now() + 240_000;
    for (const port of [ports.paste, ports.license]) {
      while (
        !(await fetch(`http://localhost:${port}/readyz`).then(
          (response) => response.ok,
          () => false,
        ))
      ) {
        if (services.exitCode !== null) throw new Error(`npm start exited with code ${services.exitCode}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`npm start was not ready within 240 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    readyAfterMs = Date.now() - started;
  }, 260_000);

  afterAll(async () => {
    if (services?.pid && services.exitCode === null) {
      const exited = once(services, 'exit');
      process.kill(services.pid, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-services.pid!, 'SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('marks the blocks to run: a paste, then a validation, then the customer', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks[0]).toContain('/api/paste');
    expect(blocks.some((block) => block.includes('/api/license/validate'))).toBe(true);
  });

  it('runs every block in order with exit status 0, and the key validates', async () => {
    const onOurPorts = (block: string) =>
      block
        .replaceAll('localhost:8080', `localhost:${ports.paste}`)
        .replaceAll('localhost:3000', `localhost:${ports.license}`)
        .replaceAll('localhost:9000', `localhost:${ports.idp}`);
    const marker = (index: number) => `@@quickstart-block-${index}@@`;
    const script = [
      'set -euo pipefail',
      ...blocks.flatMap((block, index) => [`echo '${marker(index)}'`, onOurPorts(block)]),
      `echo '${marker(blocks.length)}'`,
    ].join('\n');

    const started = Date.now();
    const shell = spawn('bash', ['-c', script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    shell.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    shell.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [code] = (await once(shell, 'exit')) as [number | null];
    const blocksMs = Date.now() - started;

    // Each block's output is what lies between its marker and the next one.
    const outputs = blocks.map((_, index) => {
      const from = stdout.indexOf(marker(index));
      const to = stdout.indexOf(marker(index + 1));
      return from < 0 ? undefined : stdout.slice(from + marker(index).length, to < 0 ? undefined : to).trim();
    });
    const transcript = blocks
      .map((block, index) => `$ ${block.trim().replaceAll('\n', '\n  ')}\n${outputs[index] ?? '(not run)'}`)
      .join('\n\n');
    process.stderr.write(
      `\nREADME quick start: services ready ${(readyAfterMs / 1000).toFixed(1)} s after start, ` +
        `the blocks took ${(blocksMs / 1000).toFixed(1)} s\n\n${transcript}\n${stderr ? `\nstderr:\n${stderr}` : ''}\n`,
    );

    const failed = outputs.findIndex((_, index) => !stdout.includes(marker(index + 1)));
    expect(
      failed,
      `block ${failed + 1} did not finish (bash exit status ${code}):\n${blocks[failed]}\nstderr:\n${stderr}`,
    ).toBe(-1);
    expect(code).toBe(0);
    const validation = outputs.filter((_, index) => blocks[index]!.includes('/api/license/validate')).at(-1);
    expect(validation).toContain('"success":true,"valid":true');
    expect(outputs[0]).toContain('Hello from the quick start');
  }, 180_000);
});
