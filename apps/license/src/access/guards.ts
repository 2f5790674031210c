import type { RequestHandler } from 'express';
import type pg from 'pg';
import { publicAccess, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { requireAdmin, type TwoFactorGate } from '../admins/require-admin.js';
import type { JwtService } from '../admins/jwt.js';
import type { CustomerRecord } from '../common/request.js';

/** Who may call the license service's routes; each declaration names one of these. */
export interface LicenseGuards {
  public: Guard;
  /** A signed-in admin session that has passed the two-factor gate, or an admin JWT bearer. */
  admin: Guard;
  /** The admin guard without the two-factor gate: the two-factor routes are the way through it. */
  adminWithoutTwoFactor: Guard;
  /** A signed-in user who is registered as a customer (sets `req.customer`). */
  customer: Guard;
}

/** How the API description names the two ways in (`license.sid` is the session cookie). */
export const securitySchemes = {
  session: { type: 'apiKey', in: 'cookie', name: 'license.sid' },
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
};

const adminSecurity: Array<Record<string, string[]>> = [{ session: [] }, { bearer: [] }];

/** 401 without a session, 403 when the signed-in user is not a customer. */
function requireCustomer(findCustomer: (userId: string) => Promise<CustomerRecord | undefined>): RequestHandler {
  return async (req, _res, next) => {
    if (!req.user) throw appError('UNAUTHORIZED');
    const customer = await findCustomer(req.user.id);
    if (!customer) throw appError('NO_CUSTOMER_ACCOUNT');
    req.customer = customer;
    next();
  };
}

/** The guards, built once from what they check against. */
export function createGuards(deps: {
  pool: pg.Pool;
  jwt: JwtService;
  twoFactorGate: TwoFactorGate;
  findCustomer: (userId: string) => Promise<CustomerRecord | undefined>;
}): LicenseGuards {
  const { pool, jwt } = deps;
  return {
    public: publicAccess,
    admin: {
      name: 'admin',
      middleware: [requireAdmin({ pool, jwt, twoFactorGate: deps.twoFactorGate })],
      security: adminSecurity,
    },
    adminWithoutTwoFactor: {
      name: 'adminWithoutTwoFactor',
      middleware: [requireAdmin({ pool, jwt })],
      security: adminSecurity,
    },
    customer: { name: 'customer', middleware: [requireCustomer(deps.findCustomer)], security: [{ session: [] }] },
  };
}
