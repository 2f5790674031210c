import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { withTransaction, type Queryable } from '@app/db';
import type { WebhookDispatcher } from '@app/events';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import type { SecretBox } from '../two-factor/two-factor.crypto.js';
import { failPendingOfEndpoint, latestDeliveryByEndpoint } from './webhook-deliveries.repository.js';
import * as repo from './webhook-endpoints.repository.js';
import { webhookEndpointJson } from './webhook-endpoints.presenter.js';
import { WEBHOOK_TEST_EVENT, type CreateEndpoint } from './webhook-endpoints.schema.js';

/** The id of the endpoint made from WEBHOOK_URL at the first start (fixed, so two instances make it once). */
export const seededEndpointId = '00000000-0000-4000-8000-0000000000e1';
const systemActor: Actor = { userId: 'system', ip: null, userAgent: null };
const notFound = () => appError('WEBHOOK_ENDPOINT_NOT_FOUND');
const endpointsCacheMs = 1000;

/** A new signing secret: 32 random bytes, shown to the admin once. */
export const newEndpointSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export interface EndpointSeed {
  url?: string;
  events: string[];
  secret?: string;
}

/**
 * The webhook endpoints an admin manages: each enabled one gets the events it lists, signed with
 * its own secret. Secrets are sealed at rest and shown only when made (create, rotate). Every
 * write is audited (resource type `notification`, as deliveries are) in its transaction.
 */
export function createWebhookEndpointsService(deps: {
  pool: pg.Pool;
  now: () => Date;
  box: SecretBox;
  checkUrl: (url: string) => Promise<void>;
  dispatcher: Pick<WebhookDispatcher, 'emitTo'>;
}) {
  const { pool, now, box } = deps;
  // The enabled endpoints, read at most once a second (every event needs them; a burst of events
  // shares one read). This instance's own writes drop it at once; another instance's apply within a second.
  let cached: { at: number; endpoints: ReturnType<typeof repo.enabledEndpoints> } | undefined;
  const enabledEndpoints = () => {
    if (!cached || Date.now() - cached.at > endpointsCacheMs) {
      const endpoints = repo.enabledEndpoints(pool);
      cached = { at: Date.now(), endpoints };
      endpoints.catch(() => {
        if (cached?.endpoints === endpoints) cached = undefined;
      });
    }
    return cached.endpoints;
  };
  const changed = <T>(result: T) => {
    cached = undefined;
    return result;
  };
  const find = async (client: Queryable, id: string) => {
    const row = isUuid(id) ? await repo.findEndpoint(client, id) : undefined;
    if (!row) throw notFound();
    return row;
  };

  return {
    async list() {
      const rows = await repo.listEndpoints(pool);
      const latest = await latestDeliveryByEndpoint(
        pool,
        rows.map((row) => row.id),
      );
      return rows.map((row) => webhookEndpointJson(row, latest.get(row.id)));
    },

    get: async (id: string) => webhookEndpointJson(await find(pool, id)),

    /** Answers the endpoint and its secret, the only time the secret is told. */
    async create(actor: Actor, input: CreateEndpoint) {
      await deps.checkUrl(input.url);
      const secret = newEndpointSecret();
      return changed(
        await withTransaction(pool, async (client) => {
          const endpoint = webhookEndpointJson(
            await repo.insertEndpoint(client, {
              id: randomUUID(),
              url: input.url,
              events: [...new Set(input.events)],
              secret_sealed: box.seal(secret),
              enabled: true,
              created_at: now(),
            }),
          );
          await recordAudit(client, actor, {
            action: 'create',
            resourceType: 'notification',
            resourceId: endpoint._id,
            after: endpoint,
          });
          return { endpoint, secret };
        }),
      );
    },

    setEnabled: (actor: Actor, id: string, enabled: boolean) =>
      withTransaction(pool, async (client) => {
        const before = webhookEndpointJson(await find(client, id));
        const endpoint = webhookEndpointJson((await repo.updateEndpoint(client, id, { enabled, updated_at: now() }))!);
        await recordAudit(client, actor, {
          action: 'update',
          resourceType: 'notification',
          resourceId: id,
          before,
          after: endpoint,
        });
        return endpoint;
      }).then(changed),

    /** A new secret signs every attempt from now on (retries of earlier deliveries too); told once. */
    rotate: (actor: Actor, id: string) =>
      withTransaction(pool, async (client) => {
        const before = webhookEndpointJson(await find(client, id));
        const secret = newEndpointSecret();
        const endpoint = webhookEndpointJson(
          (await repo.updateEndpoint(client, id, { secret_sealed: box.seal(secret), updated_at: now() }))!,
        );
        await recordAudit(client, actor, {
          action: 'update',
          resourceType: 'notification',
          resourceId: id,
          before,
          after: { ...endpoint, secretRotated: true },
        });
        return { endpoint, secret };
      }).then(changed),

    /** Its pending deliveries are kept as failed; delivered and failed ones stay in the log (endpoint_id becomes null). */
    remove: (actor: Actor, id: string) =>
      withTransaction(pool, async (client) => {
        const before = webhookEndpointJson(await find(client, id));
        const cancelled = await failPendingOfEndpoint(client, id);
        await repo.deleteEndpoint(client, id);
        await recordAudit(client, actor, {
          action: 'delete',
          resourceType: 'notification',
          resourceId: id,
          before,
          after: { pendingDeliveriesFailed: cancelled },
        });
        return before;
      }).then(changed),

    /** Queues a `webhook.test` delivery to the endpoint (enabled or not), signed like any other. */
    async sendTest(actor: Actor, id: string) {
      const endpoint = await find(pool, id);
      const deliveryId = await deps.dispatcher.emitTo(
        endpoint.url,
        WEBHOOK_TEST_EVENT,
        {
          endpointId: endpoint.id,
          message: 'A test delivery from the license service.',
        },
        { endpointId: endpoint.id },
      );
      await recordAudit(pool, actor, {
        action: 'create',
        resourceType: 'notification',
        resourceId: id,
        after: { testDelivery: deliveryId, event: WEBHOOK_TEST_EVENT },
      });
      return deliveryId;
    },

    /** Queues `event` to every enabled endpoint that takes it: one delivery each, each signed with its endpoint's secret. */
    async fanOut(event: string, data: object) {
      for (const endpoint of await enabledEndpoints()) {
        if (endpoint.events.length > 0 && !endpoint.events.includes(event)) continue;
        await deps.dispatcher.emitTo(endpoint.url, event, data, { endpointId: endpoint.id });
      }
    },

    /** The environment's endpoint (WEBHOOK_URL, WEBHOOK_EVENTS, WEBHOOK_SECRET), made when no endpoint exists yet. */
    async seed(seed: EndpointSeed) {
      if (!seed.url) return undefined;
      const { url } = seed;
      return withTransaction(pool, async (client) => {
        const row = await repo.insertSeedEndpoint(client, {
          id: seededEndpointId,
          url,
          events: seed.events,
          secret_sealed: seed.secret ? box.seal(seed.secret) : null,
          enabled: true,
          created_at: now(),
        });
        if (row)
          await recordAudit(client, systemActor, {
            action: 'create',
            resourceType: 'notification',
            resourceId: row.id,
            after: { ...webhookEndpointJson(row), from: 'environment' },
          });
        return row && webhookEndpointJson(row);
      }).then(changed);
    },
  };
}
export type WebhookEndpointsService = ReturnType<typeof createWebhookEndpointsService>;
