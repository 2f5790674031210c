import type pg from 'pg';
import { uniqueViolation, withTransaction, type Queryable } from '@app/db';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { isUuid, iso } from '../common/schemas.js';
import type { EventBus } from '../events/event-bus.js';
import { customerExists } from '../customers/customers.service.js';
import { productForLicense } from '../products/products.service.js';
import { deleteUsageOfLicense, foldUsageRollups, usageStatsOfLicense } from '../usage/usage.service.js';
import { entitlementIdsOf } from '../entitlements/entitlements.service.js';
import { policyForLicense } from '../policies/policies.service.js';
import { generateLicenseKey } from '../common/license-key.js';
import { licenseJson, memberJson, usageStatsJson, type LicenseJson } from './licenses.presenter.js';
import { countReleasesSince, recordRelease } from './license-releases.repository.js';
import { claimSharingFlags } from './license-sharing.repository.js';
import * as repo from './licenses.repository.js';
import { decodeLicenseCursor } from './list-cursor.js';
import type { CreateLicense, ListLicenses, UpdateLicense } from './licenses.schema.js';

const notFound = () => appError('LICENSE_NOT_FOUND');
const trialDays = 14;
const releaseWindowMs = 86_400_000;

/** A license of this customer (the customer portal's reads), or undefined: another customer's is never read. */
export const licenseOfCustomer = (db: Queryable, customerId: string, licenseId: string) =>
  repo.findLicenseOfCustomer(db, customerId, licenseId);
/** Every license of this customer, newest first. */
export const licensesOfCustomer = (db: Queryable, customerId: string) => repo.listLicensesOfCustomer(db, customerId);

/**
 * The machines feature's reads and writes of a license (its seat rules live in the license row):
 * a license by id, optionally locked for the caller's transaction, and the removal of one binding.
 */
export const findLicenseRow: typeof repo.findLicense = (db, id, options) => repo.findLicense(db, id, options);
export const removeLicenseBinding: typeof repo.removeBinding = (db, licenseId, binding) =>
  repo.removeBinding(db, licenseId, binding);

/** One IP or one hardware id recorded on a license. */
export type LicenseBinding = { ip: string } | { hwid: string };

/** Keys are random (142 bits): a taken one is all but impossible, yet answered as a conflict. */
async function orKeyTaken<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (uniqueViolation(error) === 'licenses_key_idx') throw appError('LICENSE_KEY_TAKEN');
    throw error;
  }
}

/** The payload of LICENSE_CREATED, whoever created the license. */
export const licenseCreatedEvent = (license: LicenseJson) => ({
  licenseKey: license.key,
  licenseId: license._id,
  productId: license.product._id,
  customerId: license.customer?._id ?? null,
  licenseType: license.licenseType,
  expiresAt: license.expiresAt,
});

export interface LicensesServiceDeps {
  pool: pg.Pool;
  events: EventBus;
  now: () => Date;
}

export function createLicensesService(deps: LicensesServiceDeps) {
  const { pool, events, now } = deps;

  /** The license as the admin API shows it, read inside the caller's transaction when given one. */
  async function adminView(db: Queryable, id: string) {
    const row = await repo.findLicense(db, id);
    if (!row) throw notFound();
    return { ...licenseJson(row), members: (await repo.listMembers(db, id)).map(memberJson) };
  }

  async function lockedOrThrow(client: Queryable, id: string) {
    const row = isUuid(id) ? await repo.findLicense(client, id, { forUpdate: true }) : undefined;
    if (!row) throw notFound();
    return { row, before: { ...licenseJson(row), members: (await repo.listMembers(client, id)).map(memberJson) } };
  }

  async function checkParent(client: Queryable, parentId: string, selfId?: string) {
    if (parentId === selfId)
      throw appError('VALIDATION_FAILED', { details: { parent: 'A license cannot be its own master' } });
    const parent = await repo.findLicense(client, parentId);
    if (!parent) throw appError('MASTER_LICENSE_NOT_FOUND');
    if (parent.parent_id)
      throw appError('VALIDATION_FAILED', { details: { parent: 'A child license cannot be a master' } });
  }

  /** Writes a state change and its audit entry in one transaction; returns the new state. */
  async function change(
    actor: Actor,
    id: string,
    action: 'update' | 'suspend' | 'activate' | 'revoke',
    compute: (row: repo.LicenseRow) => repo.LicenseChanges,
  ) {
    return withTransaction(pool, async (client) => {
      const { row, before } = await lockedOrThrow(client, id);
      await repo.updateLicense(client, id, compute(row));
      const after = await adminView(client, id);
      await recordAudit(client, actor, { action, resourceType: 'license', resourceId: id, before, after });
      return after;
    });
  }

  /** A policy of the license's product (held until the caller commits), or a 400 naming the field. */
  async function policyOf(client: Queryable, policyId: string, productId: string | undefined) {
    const policy = await policyForLicense(client, policyId);
    if (productId !== undefined && policy.product_id !== productId) {
      throw appError('VALIDATION_FAILED', { details: { policyId: 'The policy belongs to another product' } });
    }
    return policy;
  }

  async function createWithin(client: Queryable, actor: Actor, input: CreateLicense) {
    // What the request leaves out comes from the policy, copied now (its entitlements are read at each validation).
    const policy = input.policyId ? await policyOf(client, input.policyId, input.product) : undefined;
    const licenseType = input.licenseType ?? policy?.license_type ?? 'fixed';
    const credits = input.credits ?? policy?.credits ?? undefined;
    if (licenseType === 'consumption' && credits === undefined) {
      throw appError('VALIDATION_FAILED', { details: { credits: 'Required for consumption licenses' } });
    }
    const product = await productForLicense(client, policy?.product_id ?? input.product!);
    if (!product) throw appError('PRODUCT_NOT_FOUND');
    if (!product.is_active) throw appError('PRODUCT_NOT_ACTIVE');
    if (input.customer && !(await customerExists(client, input.customer))) throw appError('CUSTOMER_NOT_FOUND');
    if (input.parent) await checkParent(client, input.parent);
    const entitlementIds = input.entitlements ? await entitlementIdsOf(client, input.entitlements) : [];
    // A trial without an end would never end: default to two weeks.
    const days = policy?.duration_days ?? (licenseType === 'trial' ? trialDays : null);
    const expiresAt =
      input.expiresAt !== undefined
        ? input.expiresAt
        : days === null
          ? null
          : new Date(now().getTime() + days * 86_400_000);
    const id = await repo.insertLicense(client, {
      key: generateLicenseKey(product.license_prefix),
      productId: product.id,
      customerId: input.customer ?? null,
      parentId: input.parent ?? null,
      licenseType,
      active: input.active,
      expiresAt,
      policyId: policy?.id ?? null,
      ipLimit: input.ipLimit ?? policy?.ip_limit ?? 0,
      hwidLimit: input.hwidLimit ?? policy?.hwid_limit ?? 0,
      heartbeatSeconds:
        input.heartbeatSeconds !== undefined ? input.heartbeatSeconds : (policy?.heartbeat_seconds ?? null),
      graceDays: input.graceDays ?? policy?.grace_days ?? 0,
      expirationStrategy: input.expirationStrategy ?? policy?.expiration_strategy ?? 'revoke',
      borrowHours: input.borrowHours ?? policy?.borrow_hours ?? 0,
      // Null follows the policy's limit as it changes (read at each validation batch).
      sharingAddressLimit: input.sharingAddressLimit ?? null,
      creditsTotal: credits ?? 0,
      convertToType: input.convertToType ?? (input.autoConvert ? 'fixed' : null),
      autoConvert: input.autoConvert,
      convertDurationDays: input.convertDurationDays ?? null,
      metadata: input.metadata ?? {},
    });
    if (input.members) await repo.replaceMembers(client, id, input.members);
    if (entitlementIds.length) await repo.replaceLicenseEntitlements(client, id, entitlementIds);
    const after = await adminView(client, id);
    await recordAudit(client, actor, { action: 'create', resourceType: 'license', resourceId: id, after });
    return after;
  }

  const releaseWithin = (actor: Actor, customerId: string, id: string, binding: LicenseBinding, perDay: number) =>
    withTransaction(pool, async (client) => {
      const row = isUuid(id) ? await repo.findLicense(client, id, { forUpdate: true }) : undefined;
      // Another customer's license reads as missing, as on every customer route.
      if (!row || row.customer_id !== customerId) throw notFound();
      const inUse = 'ip' in binding ? row.used_ips.includes(binding.ip) : row.used_hwids.includes(binding.hwid);
      if (!inUse) throw appError('LICENSE_BINDING_NOT_IN_USE');
      const at = now();
      const since = new Date(at.getTime() - releaseWindowMs);
      if ((await countReleasesSince(client, id, since)) >= perDay) throw appError('LICENSE_RELEASE_LIMIT_REACHED');
      await repo.removeBinding(client, id, binding);
      await recordRelease(client, id, at, since);
      const after = await repo.findLicense(client, id);
      if (!after) throw notFound();
      await recordAudit(client, actor, {
        action: 'release',
        resourceType: 'license',
        resourceId: id,
        before: { usedIps: row.used_ips, usedHwids: row.used_hwids },
        after: { usedIps: after.used_ips, usedHwids: after.used_hwids, released: binding, customerId },
      });
      return after;
    });

  return {
    /**
     * Emits LICENSE_SHARING_SUSPECTED for each license flagged for key sharing and not announced
     * yet (the flags are claimed in the database, so each is announced once across instances);
     * answers how many. Run every few seconds by the analytics module. The validations committed
     * before are folded into the rollups first (the flags are raised there).
     */
    async announceSharingSuspicions(): Promise<number> {
      await foldUsageRollups(pool, now(), true);
      let announced = 0;
      for (;;) {
        const claimed = await claimSharingFlags(pool, now(), 100);
        for (const flag of claimed) {
          await events.emit('LICENSE_SHARING_SUSPECTED', {
            licenseId: flag.license_id,
            licenseKey: flag.key,
            customerId: flag.customer_id,
            productId: flag.product_id,
            day: flag.day,
            addresses: flag.addresses,
            sharingAddressLimit: flag.address_limit,
          });
        }
        announced += claimed.length;
        if (claimed.length < 100) return announced;
      }
    },

    detail: async (id: string) => {
      if (!isUuid(id)) throw notFound();
      const row = await repo.findLicense(pool, id);
      if (!row) throw notFound();
      const license = licenseJson(row);
      return {
        ...license,
        product: { ...license.product, description: row.product_description },
        members: (await repo.listMembers(pool, id)).map(memberJson),
        usageStats: usageStatsJson(await usageStatsOfLicense(pool, id)),
      };
    },

    /** A page newest first, the total matching, and the cursor of the next page (null at the end). */
    async list(query: ListLicenses) {
      const after = query.cursor === undefined ? undefined : decodeLicenseCursor(query.cursor);
      if (query.cursor !== undefined && !after)
        throw appError('VALIDATION_FAILED', {
          details: { cursor: 'cursor must be a nextCursor this service answered' },
        });
      const { rows, total, nextCursor } = await repo.listLicenses(pool, query, now(), after);
      return { licenses: rows.map(licenseJson), total, nextCursor };
    },

    async create(actor: Actor, input: CreateLicense) {
      const license = await orKeyTaken(withTransaction(pool, (client) => createWithin(client, actor, input)));
      await events.emit('LICENSE_CREATED', licenseCreatedEvent(license));
      return license;
    },

    /**
     * Creates a license inside the caller's transaction (a purchase records its payment in the
     * same commit), with the same rules and audit as `create`. The caller emits LICENSE_CREATED
     * (`licenseCreatedEvent`) once its transaction has committed.
     */
    createWithin: (client: Queryable, actor: Actor, input: CreateLicense) =>
      orKeyTaken(createWithin(client, actor, input)),

    /**
     * Extends the license of `key` inside the caller's transaction: `days` added to its expiry
     * (from now when it has expired or has none) and `credits` added; audited as an update.
     */
    async extendWithin(client: Queryable, actor: Actor, key: string, extension: { days: number; credits: number }) {
      const row = await repo.findLicenseByKey(client, key, { forUpdate: true });
      if (!row) throw notFound();
      const before = await adminView(client, row.id);
      await repo.extendLicense(client, row.id, extension.days, extension.credits, now());
      const after = await adminView(client, row.id);
      await recordAudit(client, actor, {
        action: 'update',
        resourceType: 'license',
        resourceId: row.id,
        before,
        after,
      });
      return after;
    },

    /** The id and key of a license named by id or by key (automated actions name them either way). */
    async find(ref: { licenseId?: string; licenseKey?: string }) {
      const row = ref.licenseId
        ? isUuid(ref.licenseId)
          ? await repo.findLicense(pool, ref.licenseId)
          : undefined
        : ref.licenseKey
          ? await repo.findLicenseByKey(pool, ref.licenseKey)
          : undefined;
      return row ? { id: row.id, key: row.key, expiresAt: row.expires_at } : undefined;
    },

    /** Trials past their end with automatic conversion on become their full type, each audited. */
    convertDueTrials: (actor: Actor) =>
      withTransaction(pool, async (client) => {
        const converted = await repo.convertDueTrials(client, now());
        for (const license of converted) {
          await recordAudit(client, actor, {
            action: 'update',
            resourceType: 'license',
            resourceId: license.id,
            before: { licenseType: 'trial' },
            after: {
              licenseType: license.license_type,
              expiresAt: iso(license.expires_at),
              convertedBy: 'trial conversion',
            },
          });
        }
        return converted;
      }),

    /** Claims up to `limit` expired licenses not announced yet (see the repository); the caller announces them. */
    claimExpired: (limit: number) => repo.claimExpiredLicenses(pool, now(), limit),

    update: (actor: Actor, id: string, input: UpdateLicense) =>
      withTransaction(pool, async (client) => {
        const { row, before } = await lockedOrThrow(client, id);
        if (input.customer && !(await customerExists(client, input.customer))) throw appError('CUSTOMER_NOT_FOUND');
        if (input.parent) await checkParent(client, input.parent, id);
        if (input.policyId) await policyOf(client, input.policyId, row.product_id);
        const entitlementIds = input.entitlements && (await entitlementIdsOf(client, input.entitlements));
        await repo.updateLicense(client, id, {
          customerId: input.customer,
          licenseType: input.licenseType,
          expiresAt: input.expiresAt,
          ipLimit: input.ipLimit,
          hwidLimit: input.hwidLimit,
          heartbeatSeconds: input.heartbeatSeconds,
          graceDays: input.graceDays,
          expirationStrategy: input.expirationStrategy,
          borrowHours: input.borrowHours,
          sharingAddressLimit: input.sharingAddressLimit,
          creditsTotal: input.credits,
          parentId: input.parent,
          active: input.active,
          convertToType: input.convertToType,
          autoConvert: input.autoConvert,
          convertDurationDays: input.convertDurationDays,
          metadata: input.metadata,
          policyId: input.policyId,
        });
        if (input.members) await repo.replaceMembers(client, id, input.members);
        if (entitlementIds) await repo.replaceLicenseEntitlements(client, id, entitlementIds);
        const after = await adminView(client, id);
        await recordAudit(client, actor, { action: 'update', resourceType: 'license', resourceId: id, before, after });
        return after;
      }),

    suspend: (actor: Actor, id: string, reason: string | undefined) =>
      change(actor, id, 'suspend', () => ({ suspended: true, suspendReason: reason ?? null, suspendedAt: now() })),

    reactivate: (actor: Actor, id: string) =>
      change(actor, id, 'activate', (row) => {
        if (row.revoked) throw appError('LICENSE_REVOKED_NOT_REACTIVATED');
        return { suspended: false, suspendReason: null, suspendedAt: null, active: true };
      }),

    async revoke(actor: Actor, id: string, reason: string | undefined) {
      const license = await change(actor, id, 'revoke', () => ({
        revoked: true,
        revokeReason: reason ?? null,
        revokedAt: now(),
      }));
      await events.emit('LICENSE_REVOKED', { licenseKey: license.key, licenseId: license._id, reason: reason ?? null });
      return license;
    },

    remove: (actor: Actor, id: string) =>
      withTransaction(pool, async (client) => {
        const { before } = await lockedOrThrow(client, id);
        await deleteUsageOfLicense(client, id);
        await repo.deleteLicense(client, id);
        await recordAudit(client, actor, { action: 'delete', resourceType: 'license', resourceId: id, before });
      }),

    /** A new key for the same license; the old key stops validating with this commit. */
    rotate: (actor: Actor, key: string) =>
      orKeyTaken(
        withTransaction(pool, async (client) => {
          const row = await repo.findLicenseByKey(client, key, { forUpdate: true });
          if (!row) throw notFound();
          const newKey = generateLicenseKey(row.product_prefix);
          await repo.rotateKey(client, key, newKey);
          await recordAudit(client, actor, {
            action: 'update',
            resourceType: 'license',
            resourceId: row.id,
            before: { key },
            after: { key: newKey },
          });
          return { oldKey: key, newKey };
        }),
      ),

    /**
     * A customer takes one IP or hardware id off their own license, at most `perDay` times per
     * license in any 24 hours. The count and the write happen under the license's row lock, so
     * simultaneous releases cannot pass the limit. Each release is a row of license_releases
     * (the counter), written with its audit entry. Answers the license row after the release.
     */
    async release(actor: Actor, customerId: string, id: string, binding: LicenseBinding, perDay: number) {
      const after = await releaseWithin(actor, customerId, id, binding, perDay);
      // The hardware id's machine left with it (the trigger of migration 0011).
      if ('hwid' in binding)
        await events.emit('MACHINE_DEACTIVATED', {
          licenseKey: after.key,
          licenseId: after.id,
          fingerprint: binding.hwid,
          by: 'customer',
        });
      return after;
    },

    clear: (actor: Actor, key: string) =>
      withTransaction(pool, async (client) => {
        const old = await repo.clearRestrictions(client, key);
        if (!old) throw notFound();
        await recordAudit(client, actor, {
          action: 'update',
          resourceType: 'license',
          resourceId: old.id,
          before: { usedIps: old.used_ips, usedHwids: old.used_hwids },
          after: { usedIps: [], usedHwids: [] },
        });
      }),
  };
}
export type LicensesService = ReturnType<typeof createLicensesService>;
