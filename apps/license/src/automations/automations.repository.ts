import { parseRow, parseRows, type Queryable, type RowOf, rowSchema, tableRows } from '@app/db';
import { z } from 'zod';
import type { CreateAction, TriggerEvent, UpdateAction } from './automations.schema.js';
import { automatedActionRuns, automatedActions } from './automations.table.js';

export type ActionRow = RowOf<typeof automatedActions>;
/** A run as listRuns reads it (its action is the one asked for). */
export type RunRow = Omit<RowOf<typeof automatedActionRuns>, 'action_id'>;

/** Rows of `columns` (every column of the table), checked. */
const actionRows = tableRows(automatedActions);
const runSchema = rowSchema(automatedActionRuns).omit({ action_id: true });
/** Rows of listRuns, checked against the table; typed as it infers them (its jsonb columns' types). */
const runRows = (rows: unknown[]) => parseRows(runSchema, rows) as RunRow[];
const countedRow = z.object({ execution_count: z.number(), last_executed_at: z.date() });

const columns =
  'id, name, description, enabled, trigger_event, trigger, actions, execution_count, last_executed_at, created_at, updated_at';

export async function listActions(db: Queryable): Promise<ActionRow[]> {
  const { rows } = await db.query(`SELECT ${columns} FROM automated_actions ORDER BY created_at, id`);
  return actionRows(rows);
}

export async function findAction(db: Queryable, id: string): Promise<ActionRow | undefined> {
  const { rows } = await db.query(`SELECT ${columns} FROM automated_actions WHERE id = $1`, [id]);
  return actionRows(rows)[0];
}

export async function findEnabledActions(db: Queryable, event: TriggerEvent): Promise<ActionRow[]> {
  const { rows } = await db.query(
    `SELECT ${columns} FROM automated_actions WHERE trigger_event = $1 AND enabled ORDER BY created_at, id`,
    [event],
  );
  return actionRows(rows);
}

/** The trigger events that have at least one enabled action. */
export async function enabledTriggerEvents(db: Queryable): Promise<Set<string>> {
  const { rows } = await db.query('SELECT DISTINCT trigger_event FROM automated_actions WHERE enabled');
  return new Set(parseRows(z.object({ trigger_event: z.string() }), rows).map((row) => row.trigger_event));
}

export async function insertAction(db: Queryable, input: CreateAction, now: Date): Promise<ActionRow> {
  const { rows } = await db.query(
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
  return actionRows(rows)[0]!;
}

export async function updateAction(
  db: Queryable,
  id: string,
  input: UpdateAction,
  now: Date,
): Promise<ActionRow | undefined> {
  const { rows } = await db.query(
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
  return actionRows(rows)[0];
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
  const { rows } = await db.query(
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
  // No row: the action was deleted meanwhile.
  return parseRows(countedRow, rows)[0];
}

export async function listRuns(db: Queryable, actionId: string, limit = 50): Promise<RunRow[]> {
  const { rows } = await db.query(
    `SELECT id, trigger_event, context, success, results, created_at FROM automated_action_runs
     WHERE action_id = $1 ORDER BY created_at DESC LIMIT $2`,
    [actionId, limit],
  );
  return runRows(rows);
}

/** The columns of an action's latest run (null when it never ran). */
const lastRunRow = z.object({
  last_run_at: z.date().nullable(),
  last_run_success: z.boolean().nullable(),
  last_run_trigger: z.string().nullable(),
});
/** An action with its latest run (null when it never ran), for the admin console's list. */
export type ActionWithLastRun = ActionRow & z.infer<typeof lastRunRow>;
const actionWithLastRunRows = tableRows<typeof automatedActions, z.infer<typeof lastRunRow>>(
  automatedActions,
  lastRunRow.shape,
);

/** A page of actions (oldest first, as the API lists them), each with its latest run. */
export async function listActionsPage(
  db: Queryable,
  page: { limit: number; skip: number },
): Promise<{ rows: ActionWithLastRun[]; total: number }> {
  const [list, count] = await Promise.all([
    db.query(
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
    db.query('SELECT count(*)::int AS total FROM automated_actions'),
  ]);
  return { rows: actionWithLastRunRows(list.rows), total: parseRow(z.object({ total: z.number() }), count.rows).total };
}
