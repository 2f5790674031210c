import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { z } from 'zod';
import { openDatabase, type Database } from '../open-database.js';
import { parseRows } from '../rows.js';
import { freePort } from './streaming-replica.js';

/** Why PgBouncer tests and the rehearsal's pooler are skipped here, and what to do about it. */
export const NO_PGBOUNCER = "PgBouncer is not installed (Debian's pgbouncer: apt-get install pgbouncer)";

/** The `pgbouncer` on the PATH, or Debian's /usr/sbin/pgbouncer (not on a user's PATH); undefined when none. */
export function pgbouncerBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).stdout?.trim();
  if (found) return found;
  return ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((file) => existsSync(file));
}

/** PgBouncer's version as [major, minor] (`pgbouncer --version`: "PgBouncer 1.18.0"). */
export function pgbouncerVersion(bin: string): [number, number] {
  const match = /PgBouncer (\d+)\.(\d+)/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8' }));
  return match ? [Number(match[1]), Number(match[2])] : [0, 0];
}

export interface PgBouncer {
  /** `database` on the server, through PgBouncer (the server URL's user and password). */
  urlFor(database: string): string;
  /** Transactions and queries PgBouncer passed to the server so far, per database (SHOW STATS). */
  stats(): Promise<Map<string, { transactions: number; queries: number }>>;
  /** Stops PgBouncer (its clients' connections are closed) and removes its folder. */
  close(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The PostgreSQL server PgBouncer passes connections to; its user is the one PgBouncer lets in. */
  serverUrl: string;
  /** Server connections per database and user (`default_pool_size`); default 20. */
  poolSize?: number;
  bin?: string;
}

/**
 * PgBouncer in transaction mode (`pool_mode = transaction`, as most PostgreSQL hosts run it) in
 * front of `serverUrl`, on a free port of 127.0.0.1, with its configuration in a temporary
 * folder. Every database of the server is reachable through it under its own name. It lets the
 * server URL's user in without a password (`auth_type = trust`) and logs in to the server with
 * that URL's password, if any. PgBouncer refuses to run as root: as root it drops to `postgres`.
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const bin = options.bin ?? pgbouncerBinary();
  if (!bin) throw new Error(NO_PGBOUNCER);
  const server = new URL(options.serverUrl);
  const user = decodeURIComponent(server.username) || 'postgres';
  const password = decodeURIComponent(server.password);
  const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-'));
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const files = { config: path.join(folder, 'pgbouncer.ini'), users: path.join(folder, 'userlist.txt') };
  writeFileSync(files.users, `${quoted(user)} ${quoted(password)}\n`);
  writeFileSync(
    files.config,
    [
      '[databases]',
      `* = host=${server.hostname.replace(/^\[|\]$/g, '')} port=${server.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${files.users}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 500',
      // A line per connection would be most of its output: errors and warnings only.
      'log_connections = 0',
      'log_disconnections = 0',
      `admin_users = ${user}`,
      `stats_users = ${user}`,
      ...(asRoot ? ['user = postgres'] : []),
      '',
    ].join('\n'),
  );
  if (asRoot) {
    const [uid, gid] = postgresIds();
    for (const file of [folder, files.config, files.users]) chownSync(file, uid, gid);
  }
  const child = spawn(bin, [files.config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, () => child.exitCode !== null || child.signalCode !== null);
  } catch (error) {
    await stop();
    throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${errors}`, { cause: error });
  }
  const urlFor = (database: string) => {
    const url = new URL(options.serverUrl);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    url.pathname = `/${database}`;
    return url.toString();
  };
  return {
    urlFor,
    async stats() {
      // The admin console speaks only the simple query protocol: a query without parameters.
      const admin = new pg.Client({ connectionString: urlFor('pgbouncer') });
      await admin.connect();
      try {
        const { rows } = await admin.query('SHOW STATS');
        return new Map(
          parseRows(statsRow, rows).map((row) => [
            row.database,
            { transactions: row.total_xact_count, queries: row.total_query_count },
          ]),
        );
      } finally {
        await admin.end();
      }
    },
    close: stop,
  };
}

const statsRow = z.object({
  database: z.string(),
  total_xact_count: z.coerce.number(),
  total_query_count: z.coerce.number(),
});

async function waitForPort(port: number, gone: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (gone()) throw new Error('it exited');
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on port ${port} after 15 s`);
}

/** The `postgres` user's uid and gid, which own PgBouncer's folder when we run as root. */
function postgresIds(): [number, number] {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return [id('-u'), id('-g')];
}

/** An empty database of its own on the test server, reached through a PgBouncer of its own. */
export interface PooledTestDatabase {
  /** Opened through PgBouncer as a service behind it opens it (`poolMode: 'transaction'`). */
  database: Database;
  /** The same database, straight to the server (DATABASE_MIGRATION_URL's kind of URL). */
  directUrl: string;
  pooledUrl: string;
  pgbouncer: PgBouncer;
  /** Closes the database, stops PgBouncer and drops the database. */
  close(): Promise<void>;
}

/**
 * A new empty database on `serverUrl` (the test server's maintenance database URL) behind a
 * PgBouncer in transaction mode with `poolSize` server connections: nothing migrated, so a test
 * runs the migrations through the pooler itself.
 */
export async function createPooledTestDatabase(
  serverUrl: string,
  options: { poolSize?: number; maxConnections?: number } = {},
): Promise<PooledTestDatabase> {
  const name = `pgb_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  };
  let pgbouncer: PgBouncer | undefined;
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
    pgbouncer = await startPgBouncer({ serverUrl, poolSize: options.poolSize });
    const direct = new URL(serverUrl);
    direct.pathname = `/${name}`;
    const pooledUrl = pgbouncer.urlFor(name);
    const database = await openDatabase({
      url: pooledUrl,
      poolMode: 'transaction',
      maxConnections: options.maxConnections ?? 10,
    });
    const bouncer = pgbouncer;
    return {
      database,
      directUrl: direct.toString(),
      pooledUrl,
      pgbouncer: bouncer,
      async close() {
        await database.close();
        await bouncer.close();
        await drop();
      },
    };
  } catch (error) {
    await pgbouncer?.close();
    await drop();
    throw error;
  }
}
