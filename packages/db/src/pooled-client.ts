import pg from 'pg';

/**
 * How the server URL reaches PostgreSQL: `session`, a connection of its own for each client (a
 * direct connection, or a pooler in session mode); `transaction`, through a pooler in
 * transaction mode (PgBouncer's `pool_mode = transaction`), which hands each transaction
 * whichever server connection is free.
 */
export type PoolMode = 'session' | 'transaction';

/**
 * A client that sends every statement unnamed: the hot paths name theirs (`name:` in the query
 * config) so that each connection parses and plans them once, but a named statement lives in
 * one server connection's session. Behind a transaction pooler, the next use of the name may
 * land on a connection that never saw it ("prepared statement ... does not exist"), or another
 * client's first use on one that did ("... already exists"). PgBouncer 1.21 and later can keep
 * them itself (`max_prepared_statements`); Debian 12's 1.18 cannot. Unnamed, a statement is
 * parsed with its parameters on the connection that runs it, within its transaction.
 */
class UnnamedStatementsClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    (this as { query: unknown }).query = (first: unknown, ...rest: unknown[]) => query(unnamed(first), ...rest);
  }
}

/** A query config without its name; text, a Submittable (cursor, stream) or an unnamed config as it is. */
function unnamed(config: unknown): unknown {
  if (!config || typeof config !== 'object' || typeof (config as { submit?: unknown }).submit === 'function')
    return config;
  return (config as { name?: unknown }).name === undefined ? config : { ...config, name: undefined };
}

/** The client class a pool of `mode` uses (pg.Pool's `Client` option). */
export function clientFor(mode: PoolMode): typeof pg.Client {
  return mode === 'transaction' ? UnnamedStatementsClient : pg.Client;
}
