import type { Queryable, RowOf } from '@app/db';
import type { CreateAction, TriggerEvent, UpdateAction } from './automations.schema.js';
import type { automatedActionRuns, automatedActions } from './automations.table.js';

export type ActionRow = RowOf<typeof automatedActions>;
export type RunRow = RowOf<typeof automatedActionRuns>;

const columns =
  'id, name, description, enabled, trigger_event, trigger, actions, execution_count, last_executed_at, created_at, updated_at';

export async function listActions(db: Queryable): Promise<ActionRow[]> {
  const { rows } = await db.query<ActionRow>(`SELECT ${columns} FROM automated_actions ORDER BY created_at, id`);
  return rows;
}

export async function findAction(db: Queryable, id: string): Promise<ActionRow | undefined> {
  const { rows } = await db.query<ActionRow>(`SELECT ${columns} FROM automated_actions WHERE id = $1`, [id]);
  return rows[0];
}

export async function findEnabledActions(db: Queryable, event: TriggerEvent): Promise<ActionRow[]> {
  const { rows } = await db.query<ActionRow>(
    `SELECT ${columns} FROM automated_actions WHERE trigger_event = $1 AND enabled ORDER BY created_at, id`,
    [event],
  );
  return rows;
}

/** The trigger events that have at least one enabled action. */
export async function enabledTriggerEvents(db: Queryable): Promise<Set<string>> {
  const { rows } = await db.query<{ trigger_event: string }>(
    'SELECT DISTINCT trigger_event FROM automated_actions WHERE enabled',
  );
  return new Set(rows.map((row) => row.trigger_event));
}

export async function insertAction(db: Queryable, input: CreateAction, now: Date): Promise<ActionRow> {
  const { rows } = await db.query<ActionRow>(
    `INSERT INTO automated_actions (name, description, enabled, trigger_event, trigger, actions, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${columns}`,
    [
      input.name,
      input.description,
      input.enabled,
      input.trigger.event,
      JSON.stringify(input.trigger),
      JSON.stringify(input.actions),
      now,
    ],
  );
  return rows[0]!;
}

export async function updateAction(
  db: Queryable,
  id: string,
  input: UpdateAction,
  now: Date,
): Promise<ActionRow | undefined> {
  const { rows } = await db.query<ActionRow>(
    `UPDATE automated_actions SET
       name = COALESCE($2, name), description = COALESCE($3, description), enabled = COALESCE($4, enabled),
       trigger_event = COALESCE($5, trigger_event), trigger = COALESCE($6::jsonb, trigger),
       actions = COALESCE($7::jsonb, actions), updated_at = $8
     WHERE id = $1 RETURNING ${columns}`,
    [
      id,
      input.name ?? null,
      input.description ?? null,
      input.enabled ?? null,
      input.trigger?.event ?? null,
      input.trigger ? JSON.stringify(input.trigger) : null,
      input.actions ? JSON.stringify(input.actions) : null,
      now,
    ],
  );
  return rows[0];
}

export async function deleteAction(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM automated_actions WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/** Claims a one-time firing; false when it was claimed before (by this or another instance). */
export async function claimFiring(db: Queryable, actionId: string, fireKey: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'INSERT INTO automated_action_firings (action_id, fire_key) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [actionId, fireKey],
  );
  return (rowCount ?? 0) > 0;
}

/** Records a run and counts it in one statement, so concurrent runs never lose a count. */
export async function recordRun(
  db: Queryable,
  run: {
    actionId: string;
    triggerEvent: string;
    context: Record<string, unknown>;
    success: boolean;
    results: unknown[];
    at: Date;
  },
) {
  const { rows } = await db.query<{ execution_count: number; last_executed_at: Date }>(
    `WITH counted AS (
       UPDATE automated_actions SET execution_count = execution_count + 1, last_executed_at = $6
       WHERE id = $1 RETURNING execution_count, last_executed_at
     ), logged AS (
       INSERT INTO automated_action_runs (action_id, trigger_event, context, success, results, created_at)
       SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM counted)
     )
     SELECT execution_count, last_executed_at FROM counted`,
    [run.actionId, run.triggerEvent, JSON.stringify(run.context), run.success, JSON.stringify(run.results), run.at],
  );
  return rows[0];
}

export async function listRuns(db: Queryable, actionId: string, limit = 50): Promise<RunRow[]> {
  const { rows } = await db.query<RunRow>(
    `SELECT id, trigger_event, context, success, results, created_at FROM automated_action_runs
     WHERE action_id = $1 ORDER BY created_at DESC LIMIT $2`,
    [actionId, limit],
  );
  return rows;
}

/** An action with its latest run (null when it never ran), for the admin console's list. */
export type ActionWithLastRun = ActionRow & {
  last_run_at: Date | null;
  last_run_success: boolean | null;
  last_run_trigger: string | null;
};

/** A page of actions (oldest first, as the API lists them), each with its latest run. */
export async function listActionsPage(
  db: Queryable,
  page: { limit: number; skip: number },
): Promise<{ rows: ActionWithLastRun[]; total: number }> {
  const [list, count] = await Promise.all([
    db.query<ActionWithLastRun>(
      `SELECT ${columns
        .split(', ')
        .map((column) => `a.${column}`)
        .join(', ')},
              r.created_at AS last_run_at, r.success AS last_run_success, r.trigger_event AS last_run_trigger
       FROM automated_actions a
       LEFT JOIN LATERAL (
         SELECT created_at, success, trigger_event FROM automated_action_runs WHERE action_id = a.id ORDER BY created_at DESC LIMIT 1
       ) r ON true
       ORDER BY a.created_at, a.id LIMIT $1 OFFSET $2`,
      [page.limit, page.skip],
    ),
    db.query<{ total: number }>('SELECT count(*)::int AS total FROM automated_actions'),
  ]);
  return { rows: list.rows, total: count.rows[0]?.total ?? 0 };
}
