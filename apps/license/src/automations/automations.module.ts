import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Request } from 'express';
import type { Notifier, WebhookDispatcher, WorkQueue } from '@app/events';
import type { Guard, Logger } from '@app/http';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { FeatureModule } from '@app/http';
import type { EventBus, LicenseEventName } from '../events/event-bus.js';
import type { createLicensesService } from '../licenses/licenses.service.js';
import type { ProductsService } from '../products/products.service.js';
import { createAutomationEngine, type AutomationEngine } from './automation-engine.js';
import { automationPages } from './automations.pages.js';
import { automationRoutes } from './automations.routes.js';
import type { TriggerEvent } from './automations.schema.js';
import { createAutomationsService } from './automations.service.js';
import { coreLicenseOperations } from './license-operations.js';

interface TriggerJob {
  triggerId: string;
  event: TriggerEvent;
  context: Record<string, unknown>;
  depth: number;
}
const triggerQueue = 'automation-trigger';

/** The bus's events that trigger automated actions. */
const bridges: Array<[LicenseEventName, TriggerEvent]> = [
  ['LICENSE_CREATED', 'license_created'],
  ['LICENSE_REVOKED', 'license_revoked'],
  ['LICENSE_EXPIRED', 'license_expired'],
  ['NEW_REQUEST_BLOCKED', 'violation_threshold'],
  ['ANOMALY_DETECTED', 'anomaly_detected'],
  ['MACHINE_ACTIVATED', 'machine_activated'],
  ['MACHINE_DEACTIVATED', 'machine_deactivated'],
  ['MACHINE_LEASE_EXPIRED', 'machine_lease_expired'],
  ['LICENSE_SHARING_SUSPECTED', 'license_sharing_suspected'],
];

/**
 * Automated actions: their admin routes, and the triggers. A trigger goes through the job queue,
 * stored with the event that caused it, so it survives a crash or a stop, and a retried one
 * skips the actions it already ran. `triggers` lets other features (Stripe) fire one.
 */
export function automationsModule(needs: {
  pool: pg.Pool;
  now: () => Date;
  events: EventBus;
  notifier: Notifier;
  webhooks: WebhookDispatcher;
  logger: Logger;
  licenses: ReturnType<typeof createLicensesService>;
  queue: WorkQueue;
  products: ProductsService;
  checkWebhookUrl: (url: string) => Promise<void>;
  admin: Guard;
  /** For the admin console's pages: the guard they are mounted with (each page runs the admin guard itself) and the session's CSRF token. */
  adminPage: Guard;
  csrfToken: (req: Request) => string;
}): FeatureModule & { triggers: Pick<AutomationEngine, 'trigger'> } {
  const { pool, now, queue } = needs;
  const engine = createAutomationEngine({
    pool,
    now,
    bus: needs.events,
    notifier: needs.notifier,
    webhooks: needs.webhooks,
    logger: needs.logger,
    licenses: coreLicenseOperations({ now, licenses: needs.licenses }),
  });
  const trigger = async (event: TriggerEvent, context: Record<string, unknown>) => {
    if (!(await engine.hasActionsFor(event))) return;
    await queue.send<TriggerJob>(
      triggerQueue,
      { triggerId: randomUUID(), event, context, depth: engine.currentDepth() },
      { retryLimit: 3, retryDelay: 5, retryBackoff: true },
    );
  };
  const service = createAutomationsService({ pool, now, engine, checkWebhookUrl: needs.checkWebhookUrl });
  // The products a "Create a license" step may name, read through the products feature's service.
  const { products } = needs;
  return {
    name: 'automations',
    routes: [
      ...automationRoutes({ service, admin: needs.admin }),
      ...automationPages({
        service,
        adminPage: needs.adminPage,
        csrfToken: needs.csrfToken,
        products: async () =>
          (await products.list({ includeCounts: false, activeOnly: true })).map((product) => ({
            id: product._id,
            name: product.name,
          })),
        auditFailure: (req, target, error) => recordFailedWrite(pool, req, target, error),
      }),
    ],
    triggers: { trigger },
    async eventHandlers() {
      for (const [name, event] of bridges) needs.events.on(name, (context) => trigger(event, context));
      // Automated actions run within a second of their event: this instance's own triggers wake
      // its worker at once, and triggers sent by another instance are looked for twice a second.
      await queue.work<TriggerJob>(
        triggerQueue,
        (job) => engine.trigger(job.event, job.context, { depth: job.depth, triggerId: job.triggerId }),
        { pollingIntervalSeconds: 0.5 },
      );
    },
  };
}
