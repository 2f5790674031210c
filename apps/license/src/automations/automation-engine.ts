import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import type { ChannelName, Notifier, WebhookDispatcher } from '@app/events';
import type { Logger } from '@app/http';
import type { EventBus } from '../events/event-bus.js';
import * as repo from './automations.repository.js';
import { automatedActionJson, type AutomatedAction } from './automations.presenter.js';
import type { ActionStep, TriggerEvent } from './automations.schema.js';
import type { LicenseOperations } from './license-operations.js';

export type Context = Record<string, unknown>;
export interface StepResult {
  action: string;
  success: boolean;
  message: string;
}
export interface RunResult {
  success: boolean;
  results: StepResult[];
}

export interface AutomationEngineDeps {
  pool: pg.Pool;
  now: () => Date;
  bus: EventBus;
  notifier: Notifier;
  webhooks: Pick<WebhookDispatcher, 'emitTo'>;
  licenses: LicenseOperations;
  logger: Pick<Logger, 'error' | 'warn'>;
}

// Actions cause events (a revoke emits LICENSE_REVOKED...) that may trigger actions again; a chain
// deeper than this is a loop someone configured by mistake, and is cut.
const maxDepth = 3;
const depth = new AsyncLocalStorage<number>();

/** A context value (event data, JSON) as text: strings and numbers as they are, objects as JSON, an absent one as ''. */
const contextText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : value == null
        ? ''
        : JSON.stringify(value);

/** `{{licenseKey}}` in a parameter string is replaced by the context's value. */
function interpolate<T>(value: T, context: Context): T {
  if (typeof value === 'string') {
    return value.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_match, field: string) => contextText(context[field])) as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => interpolate(item, context)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, context)])) as T;
  }
  return value;
}

function matches(conditions: Record<string, unknown> | undefined, context: Context): boolean {
  return Object.entries(conditions ?? {}).every(([field, expected]) =>
    Array.isArray(expected) ? expected.includes(context[field]) : context[field] === expected,
  );
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const list = (value: unknown): string[] | undefined =>
  Array.isArray(value)
    ? value.map(String)
    : text(value)
        ?.split(',')
        .map((item) => item.trim())
        .filter(Boolean);

export function createAutomationEngine(deps: AutomationEngineDeps) {
  const { licenses, notifier } = deps;

  /** The license named in the step's params, else the one the trigger is about (by id: a rotated key still finds it). */
  async function targetLicense(params: Context, context: Context) {
    const named = text(params.licenseId) ?? text(params.licenseKey);
    const ref = named
      ? { licenseId: text(params.licenseId), licenseKey: text(params.licenseKey) }
      : {
          licenseId: text(context.licenseId),
          licenseKey: text(context.licenseId) ? undefined : text(context.licenseKey),
        };
    if (!ref.licenseId && !ref.licenseKey) throw new Error('No license in params or context');
    const license = await licenses.find(ref);
    if (!license) throw new Error('License not found');
    return license;
  }

  function messageOf(action: AutomatedAction, params: Context, context: Context) {
    return {
      subject: text(params.subject) ?? `Automated action: ${action.name}`,
      text:
        text(params.message) ??
        `Automated action "${action.name}" ran${context.licenseKey ? ` for license ${contextText(context.licenseKey)}` : ''}.`,
    };
  }

  /** Carries out one step; the message says what happened. Throws with the reason when it fails. */
  async function perform(action: AutomatedAction, step: ActionStep, context: Context): Promise<string> {
    const params = interpolate(step.params, context);
    const reason = text(params.reason) ?? `Automated action "${action.name}"`;
    switch (step.type) {
      case 'suspend_license': {
        const license = await targetLicense(params, context);
        await licenses.suspend(license.id, reason);
        return `License ${license.key} suspended`;
      }
      case 'revoke_license': {
        const license = await targetLicense(params, context);
        await licenses.revoke(license.id, reason);
        return `License ${license.key} revoked`;
      }
      case 'create_license': {
        const created = await licenses.create({
          ...params,
          productId: params.productId ?? params.product ?? context.productId,
          customerId: params.customerId ?? params.customer ?? context.customerId,
        });
        return `License ${created.key} created`;
      }
      case 'update_license': {
        const license = await targetLicense(params, context);
        const { licenseId: _id, licenseKey: _key, ...patch } = params;
        await licenses.update(license.id, patch);
        return `License ${license.key} updated`;
      }
      case 'send_notification': {
        const message = messageOf(action, params, context);
        const channels = list(params.channels) as ChannelName[] | undefined;
        if (channels?.length) {
          for (const channel of channels) await notifier.sendVia(channel, message);
          return `Notification sent via ${channels.join(', ')}`;
        }
        const sent = await notifier.notify(text(params.kind) ?? 'custom', message);
        if (!sent.length) throw new Error('No notification channel is configured for this kind');
        return `Notification queued for ${sent.join(', ')}`;
      }
      case 'send_email':
        await notifier.sendVia('email', messageOf(action, params, context), list(params.to));
        return 'Email sent';
      case 'send_sms':
        await notifier.sendVia('sms', messageOf(action, params, context), list(params.to));
        return 'SMS sent';
      case 'send_telegram':
        await notifier.sendVia('telegram', messageOf(action, params, context), list(params.chatId));
        return 'Telegram message sent';
      case 'webhook': {
        const url = text(params.url)!;
        const event = text(params.event) ?? 'AUTOMATED_ACTION';
        await deps.webhooks.emitTo(url, event, {
          actionId: action._id,
          name: action.name,
          context,
          data: params.data ?? {},
        });
        return `Webhook to ${url} queued`;
      }
      case 'custom':
        // Nothing to carry out here: the run record keeps the step and its params for whoever acts on them.
        return `Custom action recorded${Object.keys(params).length ? `: ${JSON.stringify(params)}` : ''}`;
    }
  }

  async function run(action: AutomatedAction, triggerEvent: string, context: Context): Promise<RunResult> {
    const results: StepResult[] = [];
    await depth.run((depth.getStore() ?? 0) + 1, async () => {
      for (const step of action.actions) {
        try {
          results.push({ action: step.type, success: true, message: await perform(action, step, context) });
        } catch (error) {
          // A failing step is recorded with its reason and does not stop the next ones.
          results.push({ action: step.type, success: false, message: (error as Error).message || 'Action failed' });
        }
      }
    });
    const success = results.every((result) => result.success);
    const counted = await repo.recordRun(deps.pool, {
      actionId: action._id,
      triggerEvent,
      context,
      success,
      results,
      at: deps.now(),
    });
    await deps.bus.emit('AUTOMATED_ACTION', {
      actionId: action._id,
      name: action.name,
      trigger: triggerEvent,
      success,
      results,
      context,
      executionCount: counted?.execution_count ?? action.executionCount + 1,
    });
    return { success, results };
  }

  /**
   * Runs every enabled action of `event` whose conditions match; one failing action never stops another.
   * `origin.depth` is the chain depth of the run that caused the event (queued triggers carry it);
   * `origin.triggerId` makes a retried trigger skip the actions it already ran.
   */
  async function trigger(
    event: TriggerEvent,
    context: Context,
    origin: { depth?: number; triggerId?: string } = {},
  ): Promise<void> {
    const level = origin.depth ?? depth.getStore() ?? 0;
    if (level >= maxDepth) {
      deps.logger.warn({ event, context }, 'automated action chain too deep; not triggering');
      return;
    }
    await depth.run(level, async () => {
      for (const action of (await repo.findEnabledActions(deps.pool, event)).map(automatedActionJson)) {
        try {
          if (!matches(action.trigger.conditions, context)) continue;
          if (event === 'violation_threshold') {
            const threshold = action.trigger.threshold ?? 1;
            const blocked = Number(context.blockedCount ?? 0);
            // Fires when a license reaches its threshold, once: the claim is atomic across events and instances.
            if (!(blocked >= threshold) || !context.licenseId) continue;
            if (
              !(await repo.claimFiring(
                deps.pool,
                action._id,
                `violation:${contextText(context.licenseId)}:${threshold}`,
              ))
            )
              continue;
          } else if (
            origin.triggerId &&
            !(await repo.claimFiring(deps.pool, action._id, `trigger:${origin.triggerId}`))
          ) {
            continue;
          }
          await run(action, event, context);
        } catch (error) {
          deps.logger.error({ err: error, actionId: action._id, event }, 'automated action failed');
        }
      }
    });
  }

  /** The chain depth of the code running now (0 outside automated actions). */
  const currentDepth = () => depth.getStore() ?? 0;

  // Which trigger events have enabled actions, cached briefly: a burst of blocked validations must not
  // queue a trigger job each when no action listens. Changes made here reset it at once; another
  // instance's changes are seen within the cache's lifetime.
  const cacheMs = 2000;
  let cached: { events: Promise<Set<string>>; until: number } | undefined;
  async function hasActionsFor(event: TriggerEvent): Promise<boolean> {
    if (!cached || cached.until < Date.now()) {
      const events = repo.enabledTriggerEvents(deps.pool);
      cached = { events, until: Date.now() + cacheMs };
      events.catch(() => {
        cached = undefined;
      });
    }
    return (await cached.events).has(event);
  }
  const forgetCache = () => {
    cached = undefined;
  };

  return { run, trigger, currentDepth, hasActionsFor, forgetCache };
}

export type AutomationEngine = ReturnType<typeof createAutomationEngine>;
