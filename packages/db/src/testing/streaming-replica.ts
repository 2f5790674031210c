import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A PostgreSQL primary and a streaming replica of it, in a temporary folder, on free ports. */
export interface StreamingPair {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops the replica at once (a crash), or starts it again. */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Stops both servers and removes the folder. */
  close(): Promise<void>;
}

/** The newest PostgreSQL whose initdb, pg_ctl and pg_basebackup are installed; undefined when none is. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions
    .map((version) => path.join(root, version, 'bin'))
    .find((bin) => ['initdb', 'pg_ctl', 'pg_basebackup'].every((tool) => existsSync(path.join(bin, tool))));
}

/** The line a test or the rehearsal prints when it cannot make a replica here. */
export const NO_POSTGRES_BINARIES =
  'skipped: no PostgreSQL binaries (initdb, pg_ctl, pg_basebackup under /usr/lib/postgresql/*/bin) to make a streaming replica';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * initdb (wal_level=replica), pg_ctl start, pg_basebackup -R, pg_ctl start: the replication a
 * deployment runs, made with the system's own binaries. PostgreSQL refuses to run as root, so
 * as root the servers run as the `postgres` user, in a folder it owns.
 */
export async function startStreamingPair(options: { bin?: string } = {}): Promise<StreamingPair> {
  const bin = options.bin ?? postgresBinaries();
  if (!bin) throw new Error(NO_POSTGRES_BINARIES);
  const folder = mkdtempSync(path.join(os.tmpdir(), 'pg-replica-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(folder, ...postgresIds());
  const tool = (name: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args], { cwd: folder })
      : run(path.join(bin, name), args, { cwd: folder });
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primaryDir = path.join(folder, 'primary');
  const replicaDir = path.join(folder, 'replica');
  const settings = (port: number) =>
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${folder}'`,
      'wal_level = replica',
      'max_wal_senders = 5',
      'hot_standby = on',
      'max_connections = 200',
      // A throw-away cluster: no need to wait for the disk.
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'shared_buffers = 32MB',
    ].join('\n');
  const pgCtl = (dir: string, action: 'start' | 'stop', extra: string[] = []) =>
    tool('pg_ctl', ['-D', dir, '-l', `${dir}.log`, '-w', '-t', '60', action, ...extra]);
  let started: string[] = [];
  try {
    await tool('initdb', [
      '-D',
      primaryDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ]);
    appendFileSync(path.join(primaryDir, 'postgresql.conf'), `\n${settings(primaryPort)}\n`);
    await pgCtl(primaryDir, 'start');
    started = [primaryDir];
    await tool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    // The copy carries the primary's settings: only the port differs (postgresql.conf's last line wins).
    appendFileSync(path.join(replicaDir, 'postgresql.conf'), `\nport = ${replicaPort}\n`);
    await pgCtl(replicaDir, 'start');
    started = [replicaDir, primaryDir];
  } catch (error) {
    for (const dir of started) await pgCtl(dir, 'stop', ['-m', 'immediate']).catch(() => {});
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  let replicaUp = true;
  return {
    primaryUrl: `postgresql://postgres@127.0.0.1:${primaryPort}/postgres`,
    replicaUrl: `postgresql://postgres@127.0.0.1:${replicaPort}/postgres`,
    async stopReplica() {
      await pgCtl(replicaDir, 'stop', ['-m', 'immediate']);
      replicaUp = false;
    },
    async startReplica() {
      await pgCtl(replicaDir, 'start');
      replicaUp = true;
    },
    async close() {
      if (replicaUp) await pgCtl(replicaDir, 'stop', ['-m', 'immediate']).catch(() => {});
      await pgCtl(primaryDir, 'stop', ['-m', 'fast']).catch(() => {});
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** The `postgres` user's uid and gid, which own the servers' folder when we run as root. */
function postgresIds(): [number, number] {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return [id('-u'), id('-g')];
}
