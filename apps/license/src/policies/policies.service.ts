import type pg from 'pg';
import { withTransaction, type Queryable } from '@app/db';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import { entitlementIdsOf } from '../entitlements/entitlements.service.js';
import { policyJson } from './policies.presenter.js';
import * as repo from './policies.repository.js';
import type { CreatePolicy, UpdatePolicy } from './policies.schema.js';

const notFound = () => appError('POLICY_NOT_FOUND');

/** The policy a license is made from, inside the license's transaction (held until it commits). */
export async function policyForLicense(db: Queryable, id: string) {
  const row = isUuid(id) ? await repo.findPolicy(db, id, { lock: 'share' }) : undefined;
  if (!row) throw notFound();
  return row;
}

export function createPoliciesService(deps: { pool: pg.Pool }) {
  const { pool } = deps;
  const lockedOrThrow = async (client: Queryable, id: string) => {
    const locked = isUuid(id) ? await repo.findPolicy(client, id, { lock: 'update' }) : undefined;
    if (!locked) throw notFound();
    // Read again once locked: the locking statement's snapshot predates licenses committed while it waited.
    return (await repo.findPolicy(client, id))!;
  };
  const checkProduct = async (client: Queryable, productId: string) => {
    if (!(await repo.productName(client, productId))) throw appError('PRODUCT_NOT_FOUND');
  };
  const read = async (client: Queryable, id: string) => policyJson((await repo.findPolicy(client, id))!);

  return {
    async search(query: { productId?: string; q?: string; limit?: number; skip?: number }) {
      const { rows, total } = await repo.listPolicies(pool, query);
      return { policies: rows.map(policyJson), total };
    },

    async get(id: string) {
      const row = isUuid(id) ? await repo.findPolicy(pool, id) : undefined;
      if (!row) throw notFound();
      return policyJson(row);
    },

    create: (actor: Actor, input: CreatePolicy) =>
      withTransaction(pool, async (client) => {
        await checkProduct(client, input.productId);
        const entitlementIds = await entitlementIdsOf(client, input.entitlements);
        const id = await repo.insertPolicy(client, input);
        await repo.replacePolicyEntitlements(client, id, entitlementIds);
        const policy = await read(client, id);
        await recordAudit(client, actor, { action: 'create', resourceType: 'policy', resourceId: id, after: policy });
        return policy;
      }),

    /** New entitlements apply at the next validation of its licenses; new limits only to licenses made after. */
    update: (actor: Actor, id: string, input: UpdatePolicy) =>
      withTransaction(pool, async (client) => {
        const before = policyJson(await lockedOrThrow(client, id));
        if (input.productId !== undefined && input.productId !== before.productId) {
          await checkProduct(client, input.productId);
          // Its licenses belong to the product they were made for.
          if (before.licenseCount > 0) throw appError('POLICY_IN_USE');
        }
        const entitlementIds = input.entitlements && (await entitlementIdsOf(client, input.entitlements));
        await repo.updatePolicy(client, id, input);
        if (entitlementIds) await repo.replacePolicyEntitlements(client, id, entitlementIds);
        const policy = await read(client, id);
        await recordAudit(client, actor, {
          action: 'update',
          resourceType: 'policy',
          resourceId: id,
          before,
          after: policy,
        });
        return policy;
      }),

    remove: (actor: Actor, id: string) =>
      withTransaction(pool, async (client) => {
        // Under the row lock: a license being made from it has committed (and is counted) by now.
        const before = policyJson(await lockedOrThrow(client, id));
        if (before.licenseCount > 0) throw appError('POLICY_IN_USE');
        await repo.deletePolicy(client, id);
        await recordAudit(client, actor, { action: 'delete', resourceType: 'policy', resourceId: id, before });
      }),
  };
}
export type PoliciesService = ReturnType<typeof createPoliciesService>;
