import type pg from 'pg';
import { withTransaction } from '@app/db';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { iso, isUuid } from '../common/schemas.js';
import type { AutomationEngine, Context } from './automation-engine.js';
import * as repo from './automations.repository.js';
import { automatedActionJson, automationRunJson } from './automations.presenter.js';
import type { CreateAction, UpdateAction } from './automations.schema.js';

const notFound = () => appError('AUTOMATION_NOT_FOUND');

/** The webhook URLs of an action's steps, each checked like any outgoing URL (400 `Webhook URL not allowed`). */
async function checkWebhookSteps(
  actions: Array<{ type: string; params: Record<string, unknown> }> | undefined,
  check: (url: string) => Promise<void>,
) {
  for (const step of actions ?? []) if (step.type === 'webhook') await check(String(step.params.url));
}

export function createAutomationsService(deps: {
  pool: pg.Pool;
  now: () => Date;
  engine: AutomationEngine;
  checkWebhookUrl: (url: string) => Promise<void>;
}) {
  const { pool, now } = deps;

  async function get(id: string) {
    const row = isUuid(id) ? await repo.findAction(pool, id) : undefined;
    if (!row) throw notFound();
    return automatedActionJson(row);
  }

  /** After a committed change the engine re-reads which triggers have actions. */
  async function changed<T>(work: Promise<T>): Promise<T> {
    const result = await work;
    deps.engine.forgetCache();
    return result;
  }

  return {
    list: async () => (await repo.listActions(pool)).map(automatedActionJson),
    get,

    /** A page of actions for the admin console, each with its latest run (null when it never ran). */
    async page(page: { limit: number; skip: number }) {
      const { rows, total } = await repo.listActionsPage(pool, page);
      return {
        total,
        actions: rows.map((row) => ({
          ...automatedActionJson(row),
          lastRun: row.last_run_at
            ? {
                at: iso(row.last_run_at)!,
                success: Boolean(row.last_run_success),
                triggerEvent: row.last_run_trigger ?? '',
              }
            : null,
        })),
      };
    },

    /** An action's latest runs, newest first, with what each step did. Unknown ids throw AUTOMATION_NOT_FOUND. */
    async runs(id: string, limit = 20) {
      await get(id);
      return (await repo.listRuns(pool, id, limit)).map(automationRunJson);
    },

    create: async (actor: Actor, input: CreateAction) =>
      checkWebhookSteps(input.actions, deps.checkWebhookUrl).then(() =>
        changed(
          withTransaction(pool, async (client) => {
            const action = automatedActionJson(await repo.insertAction(client, input, now()));
            await recordAudit(client, actor, {
              action: 'create',
              resourceType: 'system',
              resourceId: action._id,
              after: action,
            });
            return action;
          }),
        ),
      ),

    update: async (actor: Actor, id: string, input: UpdateAction) =>
      checkWebhookSteps(input.actions, deps.checkWebhookUrl).then(() =>
        changed(
          withTransaction(pool, async (client) => {
            const found = isUuid(id) ? await repo.findAction(client, id) : undefined;
            if (!found) throw notFound();
            const before = automatedActionJson(found);
            const action = automatedActionJson((await repo.updateAction(client, id, input, now()))!);
            await recordAudit(client, actor, {
              action: 'update',
              resourceType: 'system',
              resourceId: id,
              before,
              after: action,
            });
            return action;
          }),
        ),
      ),

    remove: (actor: Actor, id: string) =>
      changed(
        withTransaction(pool, async (client) => {
          const found = isUuid(id) ? await repo.findAction(client, id) : undefined;
          if (!found) throw notFound();
          const before = automatedActionJson(found);
          await repo.deleteAction(client, id);
          await recordAudit(client, actor, { action: 'delete', resourceType: 'system', resourceId: id, before });
        }),
      ),

    /** A manual test run: every step is carried out for real, counted and announced like a triggered run. */
    async execute(actor: Actor, id: string, context: Context) {
      const action = await get(id);
      const result = await deps.engine.run(
        action,
        typeof context.event === 'string' ? context.event : 'manual',
        context,
      );
      await recordAudit(pool, actor, {
        action: 'update',
        resourceType: 'system',
        resourceId: id,
        after: { executed: true, context, result },
        success: result.success,
      });
      return result;
    },
  };
}
