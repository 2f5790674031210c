import { isHttpError } from '@app/http';
import type { Actor } from '../common/actor.js';
import { createLicenseSchema, updateLicenseSchema } from '../licenses/licenses.schema.js';
import type { LicensesService } from '../licenses/licenses.service.js';

/** What automated actions do to licenses; implemented with the license core's services, so audit and events follow. */
export interface LicenseOperations {
  find(ref: { licenseId?: string; licenseKey?: string }): Promise<{ id: string; key: string } | undefined>;
  suspend(licenseId: string, reason: string): Promise<void>;
  revoke(licenseId: string, reason: string): Promise<void>;
  /** Params of a `create_license` step: productId, customerId, licenseType, expiresAt or durationDays, ipLimit, hwidLimit, credits. */
  create(params: Record<string, unknown>): Promise<{ id: string; key: string }>;
  /** Params of an `update_license` step: ipLimit, hwidLimit, expiresAt, extendDays, active, credits... */
  update(licenseId: string, patch: Record<string, unknown>): Promise<void>;
}

/** Who the audit log names for changes made by automated actions. */
export const automationActor: Actor = { userId: 'automation', ip: null, userAgent: 'automated-action' };
const dayMs = 86_400_000;

/** "Validation failed" alone would not tell the admin which parameter was wrong. */
function explain(error: unknown): never {
  if (isHttpError(error) && error.details) {
    throw new Error(
      `${error.message}: ${Object.entries(error.details)
        .map(([field, message]) => `${field} ${String(message)}`)
        .join('; ')}`,
    );
  }
  throw error;
}

function parse<T>(
  schema: {
    safeParse(
      input: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  },
  input: unknown,
): T {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new Error(
      `Invalid parameters: ${result.error.issues.map((issue) => `${issue.path.map(String).join('.') || 'params'} ${issue.message}`).join('; ')}`,
    );
  }
  return result.data;
}

/** The license core's service behind the automated actions, so their changes are audited and emit events like an admin's. */
export function coreLicenseOperations(deps: { now: () => Date; licenses: LicensesService }): LicenseOperations {
  const { now, licenses } = deps;
  return {
    async find(ref) {
      const license = await licenses.find(ref);
      return license ? { id: license.id, key: license.key } : undefined;
    },
    async suspend(licenseId, reason) {
      await licenses.suspend(automationActor, licenseId, reason).catch(explain);
    },
    async revoke(licenseId, reason) {
      await licenses.revoke(automationActor, licenseId, reason).catch(explain);
    },
    async create(params) {
      const days = Number(params.durationDays);
      const input = parse(createLicenseSchema, {
        ...params,
        product: params.product ?? params.productId,
        customer: params.customer ?? params.customerId ?? undefined,
        expiresAt:
          params.expiresAt ??
          (Number.isFinite(days) && days > 0 ? new Date(now().getTime() + days * dayMs).toISOString() : undefined),
      });
      const license = await licenses.create(automationActor, input).catch(explain);
      return { id: license._id, key: license.key };
    },
    async update(licenseId, patch) {
      const { extendDays, ...rest } = patch;
      const fields: Record<string, unknown> = { ...rest };
      if (extendDays !== undefined) {
        const license = await licenses.find({ licenseId });
        const from = Math.max(license?.expiresAt ? new Date(license.expiresAt).getTime() : 0, now().getTime());
        fields.expiresAt = new Date(from + Number(extendDays) * dayMs).toISOString();
      }
      await licenses.update(automationActor, licenseId, parse(updateLicenseSchema, fields)).catch(explain);
    },
  };
}
