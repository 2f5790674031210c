import type pg from 'pg';
import { z } from 'zod';
import { parseRows } from './rows.js';

/**
 * PGlite runs PostgreSQL in single-user mode, which has no autovacuum: without this, every
 * updated or deleted row of the embedded database stays behind as a dead row forever (a paste
 * viewed 20,000 times left 20,000 dead versions of its row and of its index entries, which every
 * read of that paste walks), and the planner never gets statistics. A named statement planned
 * on an empty table kept that plan for good.
 *
 * This stands in for autovacuum, with its rules and its settings (the server's
 * `autovacuum_*` values and each table's own storage parameters): a table is vacuumed once its
 * dead rows, or the rows inserted since its last vacuum, pass threshold + scale factor x its
 * rows, and analyzed once the rows changed since its last analyze pass theirs; the whole
 * database is vacuumed when its oldest transaction id nears wraparound. Nothing is done while
 * no table needs it, so an idle service only pays the check.
 *
 * PGlite has one session: a VACUUM holds every other statement until it ends. The thresholds
 * keep that rare on large tables (a fifth of a table has to change first), as autovacuum does.
 */
const vacuumActionRow = z.object({
  /** The table, schema-qualified and quoted as needed. */
  table: z.string(),
  vacuum: z.boolean(),
  analyze: z.boolean(),
});
export type VacuumAction = z.infer<typeof vacuumActionRow>;
const wraparoundRow = z.object({ due: z.boolean() });

const candidatesSql = `
WITH settings AS (
  SELECT current_setting('autovacuum_vacuum_threshold')::float8 AS default_vac_base,
         current_setting('autovacuum_vacuum_scale_factor')::float8 AS default_vac_scale,
         current_setting('autovacuum_vacuum_insert_threshold')::float8 AS default_ins_base,
         current_setting('autovacuum_vacuum_insert_scale_factor')::float8 AS default_ins_scale,
         current_setting('autovacuum_analyze_threshold')::float8 AS default_an_base,
         current_setting('autovacuum_analyze_scale_factor')::float8 AS default_an_scale,
         current_setting('autovacuum_freeze_max_age')::float8 AS freeze_max_age
), due AS (
  SELECT format('%I.%I', s.schemaname, s.relname) AS "table",
         s.n_dead_tup > coalesce(own.vac_base, default_vac_base) + coalesce(own.vac_scale, default_vac_scale) * live.n
           -- An insert threshold of -1 turns insert-driven vacuums off, as in autovacuum.
           OR (coalesce(own.ins_base, default_ins_base) >= 0
               AND s.n_ins_since_vacuum > coalesce(own.ins_base, default_ins_base) + coalesce(own.ins_scale, default_ins_scale) * live.n)
           OR age(c.relfrozenxid) > freeze_max_age AS "vacuum",
         s.n_mod_since_analyze > coalesce(own.an_base, default_an_base) + coalesce(own.an_scale, default_an_scale) * live.n AS "analyze"
    FROM pg_stat_user_tables s
    JOIN pg_class c ON c.oid = s.relid
   CROSS JOIN settings
   CROSS JOIN LATERAL (SELECT greatest(c.reltuples, 0) AS n) live
   -- The table's own settings (storage parameters such as autovacuum_vacuum_threshold=1000).
   CROSS JOIN LATERAL (
     SELECT max(split_part(o, '=', 2)::float8) FILTER (WHERE split_part(o, '=', 1) = 'autovacuum_vacuum_threshold') AS vac_base,
            max(split_part(o, '=', 2)::float8) FILTER (WHERE split_part(o, '=', 1) = 'autovacuum_vacuum_scale_factor') AS vac_scale,
            max(split_part(o, '=', 2)::float8) FILTER (WHERE split_part(o, '=', 1) = 'autovacuum_vacuum_insert_threshold') AS ins_base,
            max(split_part(o, '=', 2)::float8) FILTER (WHERE split_part(o, '=', 1) = 'autovacuum_vacuum_insert_scale_factor') AS ins_scale,
            max(split_part(o, '=', 2)::float8) FILTER (WHERE split_part(o, '=', 1) = 'autovacuum_analyze_threshold') AS an_base,
            max(split_part(o, '=', 2)::float8) FILTER (WHERE split_part(o, '=', 1) = 'autovacuum_analyze_scale_factor') AS an_scale
       FROM unnest(c.reloptions) AS o) own
)
SELECT "table", "vacuum", "analyze" FROM due WHERE "vacuum" OR "analyze" ORDER BY "table"`;

const wraparoundSql = `SELECT age(datfrozenxid) > current_setting('autovacuum_freeze_max_age')::float8 AS due
  FROM pg_database WHERE datname = current_database()`;

const command = ({ table, vacuum, analyze }: VacuumAction) => {
  if (!vacuum) return `ANALYZE ${table}`;
  return analyze ? `VACUUM (ANALYZE) ${table}` : `VACUUM ${table}`;
};

/** Vacuums and analyzes every table that autovacuum would; answers what it did. */
export async function vacuumWhereNeeded(pool: pg.Pool): Promise<VacuumAction[]> {
  const [database] = parseRows(wraparoundRow, (await pool.query(wraparoundSql)).rows);
  if (database?.due) {
    // Every table, the system catalogs too: what the database's oldest transaction id waits for.
    await pool.query('VACUUM');
    return [{ table: '*', vacuum: true, analyze: false }];
  }
  const actions = parseRows(vacuumActionRow, (await pool.query(candidatesSql)).rows);
  for (const action of actions) await pool.query(command(action));
  return actions;
}

export interface EmbeddedVacuum {
  /** Stops the checks and waits for one under way. */
  stop(): Promise<void>;
}

/** Runs `vacuumWhereNeeded` every `intervalMs`, one run at a time; failures go to `warn`. */
export function startEmbeddedVacuum(
  pool: pg.Pool,
  options: { intervalMs: number; warn: (message: string) => void },
): EmbeddedVacuum {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = vacuumWhereNeeded(pool)
      .then(
        () => undefined,
        (error: unknown) =>
          options.warn(
            `Embedded database maintenance (vacuum) failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
      )
      .finally(() => {
        running = undefined;
      });
  }, options.intervalMs);
  // The checks never keep a process alive that has nothing else to do.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
