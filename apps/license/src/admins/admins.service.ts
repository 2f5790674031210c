import type pg from 'pg';
import type { SessionUser } from '@app/auth';
import { recordAudit } from '../audit/audit.repository.js';
import type { Actor } from '../common/actor.js';
import { ensureAdmins, findAdminByUserId, updateAdminUsername } from './admins.repository.js';

/** The admins (registered by ADMIN_IDS) and their sign-ins. */
export function createAdminsService(deps: { pool: pg.Pool }) {
  const { pool } = deps;
  return {
    register: (userIds: string[]) => ensureAdmins(pool, userIds),

    isAdmin: async (userId: string) => Boolean(await findAdminByUserId(pool, userId)),

    /** An admin's sign-in keeps their provider name up to date; sign-in and sign-out are audited. Others are not admins' business. */
    async recordSession(action: 'login' | 'logout', user: SessionUser, actor: Omit<Actor, 'userId'>) {
      if (!(await findAdminByUserId(pool, user.id))) return;
      if (action === 'login') await updateAdminUsername(pool, user.id, user.username);
      await recordAudit(pool, { ...actor, userId: user.id }, { action, resourceType: 'admin', resourceId: user.id });
    },
  };
}
