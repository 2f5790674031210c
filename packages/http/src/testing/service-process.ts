import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface ServiceProcess {
  /** http://127.0.0.1:<port> of the port the service logged it listens on. */
  url: string;
  /** Everything the process wrote so far (stdout and stderr), one pino JSON object per line. */
  output(): string;
  /** The log lines that parse as JSON. */
  logs(): Record<string, unknown>[];
  /** SIGTERM, then the exit code once the process ended (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>;
}

/**
 * Runs `node <script>` as a production service would run (its own process, only the given
 * environment) and waits until it logs `"... listening on port <n>"`. Give it port 0: the port
 * comes from the log, so parallel test files never collide.
 */
export async function startServiceProcess(options: {
  script: string;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [options.script], {
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const logs = () =>
    text.split('\n').flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as Record<string, unknown> | null;
        return parsed && typeof parsed === 'object' ? [parsed] : [];
      } catch {
        return [];
      }
    });

  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  let port: number | undefined;
  while (port === undefined) {
    port = logs()
      .map((entry) => (/listening on port/.test(String(entry.msg)) ? Number(entry.port) : undefined))
      .find(Boolean);
    if (port !== undefined) break;
    if (child.exitCode !== null)
      throw new Error(`${options.script} exited with code ${child.exitCode} before listening:\n${text}`);
    if (Date.now() > deadline) {
      await stopChild(child, exited, 5000);
      throw new Error(
        `${options.script} did not log "listening on port" within ${options.timeoutMs ?? 90_000} ms:\n${text}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => text,
    logs,
    stop: (timeoutMs = 15_000) => stopChild(child, exited, timeoutMs),
  };
}

async function stopChild(
  child: ChildProcess,
  exited: Promise<number | null>,
  timeoutMs: number,
): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
