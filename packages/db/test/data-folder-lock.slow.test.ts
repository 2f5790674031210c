import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DataFolderInUseError, openDatabase } from '../src/index.js';

const holder = path.join(import.meta.dirname, 'fixtures/hold-data-folder.ts');
// tsx's loader by its path: the children run in a folder outside the workspace.
const tsxLoader = pathToFileURL(path.resolve(import.meta.dirname, '../../../node_modules/tsx/dist/loader.mjs')).href;
const workspace = mkdtempSync(path.join(os.tmpdir(), 'data-lock-'));
const running: ChildProcess[] = [];

afterAll(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(workspace, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  pid: number;
  notes?: string[];
  exitCode?: number | null;
  stderr: string;
}

/**
 * Starts a real node process (tsx) on `data/paste` under the workspace. Resolves when it holds
 * the folder (its first line of output) or when it exits.
 */
function start(note: string): Promise<Started> {
  const child = spawn(process.execPath, ['--import', tsxLoader, holder, 'data/paste', note], {
    cwd: workspace,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('\n')) {
        const line = JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as { pid: number; notes: string[] };
        resolve({ child, pid: line.pid, notes: line.notes, stderr });
      }
    });
    child.on('exit', (exitCode) =>
      resolve({
        child,
        pid: child.pid!,
        exitCode,
        get stderr() {
          return stderr;
        },
      }),
    );
    child.on('error', reject);
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

describe('one process per embedded data folder', () => {
  it('when a second process starts on a folder in use it exits 1 naming the holder; after the holder is killed a third takes over and sees its data', async () => {
    const first = await start('written by the first');
    expect(first.notes).toEqual(['written by the first']);

    const second = await start('written by the second');
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toBe(`data/paste is in use by process ${first.pid}\n`);

    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(existsSync(path.join(workspace, 'data/paste.lock'))).toBe(true);

    const third = await start('written by the third');
    expect(third.notes).toEqual(['written by the first', 'written by the third']);
    expect(third.stderr).toContain(
      `data/paste was locked by process ${first.pid}, which is no longer running: took over its lock`,
    );

    // A clean close releases the lock: the next process starts without a warning.
    third.child.stdin!.end();
    await exited(third.child);
    expect(third.child.exitCode).toBe(0);
    expect(existsSync(path.join(workspace, 'data/paste.lock'))).toBe(false);
  }, 120_000);

  it('treats a lock whose pid now runs another program (a reused pid) as stale', async () => {
    const folder = path.join(workspace, 'reused');
    // Our parent process runs, but it started at another time than the lock records.
    writeFileSync(`${folder}.lock`, JSON.stringify({ pid: process.ppid, started: '1', token: 'old' }));
    const warnings: string[] = [];
    const database = await openDatabase({ dataDir: folder, warn: (message) => warnings.push(message) });
    try {
      expect(warnings).toEqual([
        `${path.normalize(folder)} was locked by process ${process.ppid}, which is no longer running: took over its lock`,
      ]);
      // Within one process too, a second open of the same folder is refused.
      const second = openDatabase({ dataDir: folder });
      await expect(second).rejects.toBeInstanceOf(DataFolderInUseError);
      await expect(second).rejects.toThrow(`${path.normalize(folder)} is in use by process ${process.pid}`);
    } finally {
      await database.close();
    }
  }, 60_000);
});
