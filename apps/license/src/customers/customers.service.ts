import type pg from 'pg';
import { uniqueViolation, withTransaction, type Queryable } from '@app/db';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import type { LicenseReads } from '../common/license-reads.js';
import { customerJson } from './customers.presenter.js';
import * as repo from './customers.repository.js';
import type { CreateCustomer, ListCustomers, UpdateCustomer } from './customers.schema.js';

const notFound = () => appError('CUSTOMER_NOT_FOUND');
const userIdTaken = () => appError('CUSTOMER_USER_ID_TAKEN');

/** The check before the write reads committed rows: a simultaneous request can still win the unique index. */
async function orUserIdTaken<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (uniqueViolation(error) === 'customers_user_id_idx') throw userIdTaken();
    throw error;
  }
}

/** Whether the customer exists (the licenses service asks in its transaction). */
export const customerExists = (db: Queryable, customerId: string) => repo.customerExists(db, customerId);
export const customerCount = (db: Queryable) => repo.countCustomers(db);

export function createCustomersService(deps: {
  pool: pg.Pool;
  /** Each customer's license count, read through the licenses feature. */
  licenses: Pick<LicenseReads, 'countsByCustomer'>;
}) {
  const { pool } = deps;
  /** The rows with their license counts (`license_count`), read on `db` (a transaction's client too). */
  const counted = async (db: Queryable, rows: repo.CustomerRow[]): Promise<repo.CustomerRow[]> => {
    const counts = await deps.licenses.countsByCustomer(
      db,
      rows.map((row) => row.id),
    );
    return rows.map((row) => ({ ...row, license_count: counts.get(row.id) ?? 0 }));
  };
  const findCounted = async (db: Queryable, id: string) => {
    const row = isUuid(id) ? await repo.findCustomer(db, id) : undefined;
    return row && (await counted(db, [row]))[0];
  };
  return {
    async list(query: ListCustomers) {
      const { rows, total } = await repo.listCustomers(pool, query);
      return { customers: (await counted(pool, rows)).map(customerJson), total };
    },

    /** The newest `limit` customers as choices of a select: id, name and email. */
    choices: (limit: number) => repo.listCustomerChoices(pool, limit),

    /** The customer who signs in with this provider user id (the customer guard's question). */
    findByUserId: (userId: string) => repo.findCustomerByUserId(pool, userId),

    get: async (id: string) => {
      const row = await findCounted(pool, id);
      if (!row) throw notFound();
      return customerJson(row);
    },

    create: (actor: Actor, input: CreateCustomer) =>
      orUserIdTaken(
        withTransaction(pool, async (client) => {
          if (input.userId && (await repo.userIdTaken(client, input.userId))) throw userIdTaken();
          const customer = customerJson({ ...(await repo.insertCustomer(client, input)), license_count: 0 });
          await recordAudit(client, actor, {
            action: 'create',
            resourceType: 'customer',
            resourceId: customer._id,
            after: customer,
          });
          return customer;
        }),
      ),

    update: (actor: Actor, id: string, input: UpdateCustomer) =>
      orUserIdTaken(
        withTransaction(pool, async (client) => {
          const found = await findCounted(client, id);
          if (!found) throw notFound();
          const before = customerJson(found);
          if (input.userId && (await repo.userIdTaken(client, input.userId, id))) throw userIdTaken();
          const customer = customerJson((await counted(client, [(await repo.updateCustomer(client, id, input))!]))[0]!);
          await recordAudit(client, actor, {
            action: 'update',
            resourceType: 'customer',
            resourceId: id,
            before,
            after: customer,
          });
          return customer;
        }),
      ),

    remove: (actor: Actor, id: string) =>
      withTransaction(pool, async (client) => {
        const found = await findCounted(client, id);
        if (!found) throw notFound();
        const before = customerJson(found);
        // Their licenses stay (customer_id set null): an application in the field keeps working.
        await repo.deleteCustomer(client, id);
        await recordAudit(client, actor, { action: 'delete', resourceType: 'customer', resourceId: id, before });
      }),
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
