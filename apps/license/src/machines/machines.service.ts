import type pg from 'pg';
import { batchConcurrency, createBatcher, isTransientDatabaseError, withTransaction } from '@app/db';
import { type LicenseErrorCode, appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import type { EventBus } from '../events/event-bus.js';
import { verdictCodes } from '../licenses/license-verdicts.js';
import { findLicenseRow, removeLicenseBinding } from '../licenses/licenses.service.js';
import { machineJson, type MachineJson } from './machines.presenter.js';
import * as repo from './machines.repository.js';
import type { ActivateMachine, MachineSeat } from './machines.schema.js';

/** The seat function's failures: validation's texts for the key, then the machine's own. */
const seatErrors: Record<string, LicenseErrorCode> = {
  ...verdictCodes,
  'License not found': 'LICENSE_VALIDATION_NOT_FOUND',
  'Machine not found': 'MACHINE_NOT_FOUND',
};
const sweepRounds = 1000;

export function createMachinesService(deps: { pool: pg.Pool; events: EventBus; now: () => Date }) {
  const { pool, events, now } = deps;

  async function announceLapsed(licenseId: string, licenseKey: string, fingerprints: string[]) {
    for (const fingerprint of fingerprints) {
      await events.emit('MACHINE_LEASE_EXPIRED', { licenseKey, licenseId, fingerprint });
    }
  }

  // Concurrent seat calls go to the database together, one statement per batch (as validations do).
  const seatBatched = createBatcher<repo.SeatCall, repo.SeatAnswer>({
    run: async (calls) => {
      try {
        return await repo.takeOrReleaseSeats(pool, calls, now());
      } catch (error) {
        // A database that is away fails each call (503), without running them again one by one.
        if (isTransientDatabaseError(error)) return calls.map(() => error as Error);
        throw error;
      }
    },
    concurrency: batchConcurrency(pool),
    maxBatch: 256,
  });

  /** Runs one seat operation; throws its failure, announces what changed, answers the machine and its license. */
  async function seat(op: repo.SeatOperation, request: repo.SeatRequest) {
    const answer = await seatBatched({ op, request });
    if (answer.license_id && answer.license_key)
      await announceLapsed(answer.license_id, answer.license_key, answer.lapsed_hwids);
    if (answer.error) throw appError(seatErrors[answer.error] ?? 'LICENSE_NOT_ACTIVE', { message: answer.error });
    const machine = machineJson(answer.machine!);
    const payload = {
      licenseKey: answer.license_key,
      licenseId: answer.license_id,
      machineId: machine._id,
      fingerprint: machine.fingerprint,
    };
    if (answer.created)
      await events.emit('MACHINE_ACTIVATED', {
        ...payload,
        name: machine.name,
        platform: machine.platform,
        ip: request.ip,
      });
    if (op === 'deactivate') await events.emit('MACHINE_DEACTIVATED', { ...payload, by: 'client' });
    // The license it answers for, so a client can check the product (wave 4, signed answers).
    const license = { key: answer.license_key!, productId: answer.product_id! };
    return { created: answer.created, machine, license };
  }

  async function machinesOf(licenseId: string, customerId?: string): Promise<MachineJson[]> {
    const license = await licenseOrThrow(licenseId);
    if (customerId !== undefined && license.customer_id !== customerId) throw appError('LICENSE_NOT_FOUND');
    return (await repo.listMachines(pool, license.id)).map(machineJson);
  }

  async function licenseOrThrow(id: string) {
    const row = isUuid(id) ? await findLicenseRow(pool, id) : undefined;
    if (!row) throw appError('LICENSE_NOT_FOUND');
    return row;
  }

  return {
    activate: (input: ActivateMachine, ip: string | null) =>
      seat('activate', {
        key: input.key,
        fingerprint: input.fingerprint,
        name: input.name ?? null,
        platform: input.platform ?? null,
        ip,
      }),
    heartbeat: async (input: MachineSeat, ip: string | null) => {
      const { machine, license } = await seat('heartbeat', {
        key: input.key,
        fingerprint: input.fingerprint,
        name: null,
        platform: null,
        ip,
      });
      return { machine, license };
    },
    deactivate: async (input: MachineSeat, ip: string | null) => {
      const { license } = await seat('deactivate', {
        key: input.key,
        fingerprint: input.fingerprint,
        name: null,
        platform: null,
        ip,
      });
      return { license };
    },

    /** A license's machines, oldest first; `customerId` limits it to that customer's licenses (another's reads as missing). */
    list: machinesOf,

    /**
     * The machine of this fingerprint while it holds a seat (its lease, if any, not run out), for a
     * file bound to it; 404 `Machine not found` otherwise. `customerId` as in `list`.
     */
    async holder(licenseId: string, fingerprint: string, customerId?: string): Promise<MachineJson> {
      const machine = (await machinesOf(licenseId, customerId)).find((one) => one.fingerprint === fingerprint);
      if (!machine || (machine.leaseExpiresAt !== null && new Date(machine.leaseExpiresAt) <= now()))
        throw appError('MACHINE_NOT_FOUND');
      return machine;
    },

    /** An admin gives a machine's seat back: its hardware id leaves the license (the machine row with it), audited. */
    async remove(actor: Actor, licenseId: string, machineId: string) {
      const removed = await withTransaction(pool, async (client) => {
        const license = isUuid(licenseId) ? await findLicenseRow(client, licenseId, { forUpdate: true }) : undefined;
        if (!license) throw appError('LICENSE_NOT_FOUND');
        const machine = isUuid(machineId) ? await repo.findMachine(client, license.id, machineId) : undefined;
        if (!machine) throw appError('MACHINE_NOT_FOUND');
        await removeLicenseBinding(client, license.id, { hwid: machine.fingerprint });
        const before = machineJson(machine);
        await recordAudit(client, actor, {
          action: 'delete',
          resourceType: 'license',
          resourceId: license.id,
          before: { machine: before, usedHwids: license.used_hwids },
          after: { usedHwids: license.used_hwids.filter((hwid) => hwid !== machine.fingerprint) },
        });
        return { license, machine: before };
      });
      await events.emit('MACHINE_DEACTIVATED', {
        licenseKey: removed.license.key,
        licenseId: removed.license.id,
        machineId: removed.machine._id,
        fingerprint: removed.machine.fingerprint,
        by: 'admin',
      });
    },

    /** Removes every machine whose lease ran out, license by license; answers how many. */
    async sweep(): Promise<number> {
      let removed = 0;
      for (let round = 0; round < sweepRounds; round += 1) {
        const rows = await repo.sweepOneLicense(pool, now());
        if (!rows.length) break;
        for (const row of rows) {
          await events.emit('MACHINE_LEASE_EXPIRED', {
            licenseKey: row.license_key,
            licenseId: row.license_id,
            machineId: row.machine.id,
            fingerprint: row.machine.fingerprint,
          });
        }
        removed += rows.length;
      }
      return removed;
    },
  };
}
export type MachinesService = ReturnType<typeof createMachinesService>;
