import type pg from 'pg';
import { uniqueViolation, withTransaction, type Queryable } from '@app/db';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import { entitlementJson } from './entitlements.presenter.js';
import * as repo from './entitlements.repository.js';
import type { CreateEntitlement, UpdateEntitlement } from './entitlements.schema.js';

const notFound = () => appError('ENTITLEMENT_NOT_FOUND');

/** Codes are unique: a taken one is a conflict, whichever write found it. */
async function orCodeTaken<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (uniqueViolation(error) === 'entitlements_code_idx') throw appError('ENTITLEMENT_EXISTS');
    throw error;
  }
}

/** The names of these codes (the customer portal shows them beside a license's codes). */
export const entitlementNames = (db: Queryable, codes: string[]) => repo.entitlementNames(db, codes);

/**
 * The ids of these codes, inside the caller's transaction (held until it commits, so none of
 * them is deleted meanwhile); unknown codes are a 400 naming them. Policies and licenses call it.
 */
export async function entitlementIdsOf(db: Queryable, codes: string[]): Promise<string[]> {
  const rows = await repo.findEntitlementsByCode(db, codes);
  const known = new Set(rows.map((row) => row.code));
  const unknown = codes.filter((code) => !known.has(code));
  if (unknown.length)
    throw appError('VALIDATION_FAILED', {
      details: { entitlements: `Unknown entitlement codes: ${unknown.join(', ')}` },
    });
  return rows.map((row) => row.id);
}

export function createEntitlementsService(deps: { pool: pg.Pool }) {
  const { pool } = deps;
  const lockedOrThrow = async (client: Queryable, id: string) => {
    const row = isUuid(id) ? await repo.findEntitlement(client, id, { lock: true }) : undefined;
    if (!row) throw notFound();
    return row;
  };
  return {
    /** Every entitlement by code (the console's pickers), or those whose code or name contains `q`. */
    async search(query: { q?: string; limit?: number; skip?: number } = {}) {
      const { rows, total } = await repo.listEntitlements(pool, query);
      return { entitlements: rows.map(entitlementJson), total };
    },

    async get(id: string) {
      const row = isUuid(id) ? await repo.findEntitlement(pool, id) : undefined;
      if (!row) throw notFound();
      return entitlementJson(row);
    },

    create: (actor: Actor, input: CreateEntitlement) =>
      orCodeTaken(
        withTransaction(pool, async (client) => {
          const entitlement = entitlementJson(await repo.insertEntitlement(client, input));
          await recordAudit(client, actor, {
            action: 'create',
            resourceType: 'entitlement',
            resourceId: entitlement._id,
            after: entitlement,
          });
          return entitlement;
        }),
      ),

    /** A new code applies at once: policies and licenses link the entitlement, not its code. */
    update: (actor: Actor, id: string, input: UpdateEntitlement) =>
      orCodeTaken(
        withTransaction(pool, async (client) => {
          const before = entitlementJson(await lockedOrThrow(client, id));
          const entitlement = entitlementJson((await repo.updateEntitlement(client, id, input))!);
          await recordAudit(client, actor, {
            action: 'update',
            resourceType: 'entitlement',
            resourceId: id,
            before,
            after: entitlement,
          });
          return entitlement;
        }),
      ),

    remove: (actor: Actor, id: string) =>
      withTransaction(pool, async (client) => {
        const before = entitlementJson(await lockedOrThrow(client, id));
        // Under the row lock: a policy or license that is being given it has committed by now.
        if (await repo.entitlementInUse(client, id)) throw appError('ENTITLEMENT_IN_USE');
        await repo.deleteEntitlement(client, id);
        await recordAudit(client, actor, { action: 'delete', resourceType: 'entitlement', resourceId: id, before });
      }),
  };
}
export type EntitlementsService = ReturnType<typeof createEntitlementsService>;
