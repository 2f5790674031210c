import type pg from 'pg';
import type { SessionUser } from '@app/auth';
import { withTransaction } from '@app/db';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import {
  addAdmin,
  ensureAdmins,
  findAdminByUserId,
  listAdmins,
  lockCurrentAdmins,
  markAdminRemoved,
  recordAdminSignIn,
} from './admins.repository.js';

/** An admin as the console lists them (the admin settings page shows them). */
export type { AdminListRow } from './admins.repository.js';

/**
 * The admins: registered by ADMIN_IDS at start (ids it has never seen; one removed in the console
 * stays removed), added and removed in the console, and their sign-ins. There is always at least
 * one admin: the last one cannot be removed, even by two simultaneous removals.
 */
export function createAdminsService(deps: { pool: pg.Pool; now: () => Date }) {
  const { pool, now } = deps;
  return {
    register: (userIds: string[]) => ensureAdmins(pool, userIds),

    isAdmin: async (userId: string) => Boolean(await findAdminByUserId(pool, userId)),

    list: () => listAdmins(pool),

    /** An admin's sign-in keeps their provider name and last sign-in up to date; sign-in and sign-out are audited. Others are not admins' business. */
    async recordSession(action: 'login' | 'logout', user: SessionUser, actor: Omit<Actor, 'userId'>) {
      if (!(await findAdminByUserId(pool, user.id))) return;
      if (action === 'login') await recordAdminSignIn(pool, user.id, user.username, now());
      await recordAudit(pool, { ...actor, userId: user.id }, { action, resourceType: 'admin', resourceId: user.id });
    },

    /** Makes a provider user id an admin (they become one at their next request). */
    async add(actor: Actor, userId: string): Promise<void> {
      await withTransaction(pool, async (client) => {
        if (!(await addAdmin(client, userId, now()))) throw appError('ADMIN_ALREADY_EXISTS');
        await recordAudit(client, actor, {
          action: 'create',
          resourceType: 'admin',
          resourceId: userId,
          before: null,
          after: { admin: true },
        });
      });
    },

    /** Removes an admin (their sessions and tokens stop working at once); never the last one. */
    async remove(actor: Actor, userId: string): Promise<void> {
      await withTransaction(pool, async (client) => {
        const current = await lockCurrentAdmins(client);
        if (!current.includes(userId)) throw appError('ADMIN_NOT_FOUND');
        if (current.length <= 1) throw appError(userId === actor.userId ? 'LAST_ADMIN_SELF' : 'LAST_ADMIN');
        await markAdminRemoved(client, userId, now());
        await recordAudit(client, actor, {
          action: 'delete',
          resourceType: 'admin',
          resourceId: userId,
          before: { admin: true },
          after: { admin: false },
        });
      });
    },
  };
}
export type AdminsService = ReturnType<typeof createAdminsService>;
