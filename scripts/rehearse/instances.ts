import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** One instance of a service: the production bundle in its own process, on its own port. */
export class Instance {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  readonly dataDir: string;

  constructor(
    readonly name: string,
    readonly script: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    folder: string,
  ) {
    this.dataDir = path.join(folder, `data-${name}`);
    mkdirSync(this.dataDir, { recursive: true });
  }

  async start(): Promise<void> {
    const child = spawn(process.execPath, [this.script], {
      env: { ...this.env, DATA_DIR: this.dataDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString()).slice(-2000);
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    // Generous: on a busy machine (CI sharing its cores) a start can take a minute.
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${this.name} stopped while starting: ${errors}`);
      const ready = await fetch(`http://127.0.0.1:${this.port}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${this.name} was not ready within 180 s: ${errors}`);
  }

  /** SIGTERM (a graceful stop, drained) or SIGKILL (a crash); resolves once the process is gone. */
  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    this.child?.kill(signal);
    await this.exited;
  }
}
