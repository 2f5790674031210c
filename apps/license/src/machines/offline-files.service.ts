import type pg from 'pg';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import { verdictCodes } from '../licenses/license-verdicts.js';
import { decodeActivationRequest } from './activation-request.js';
import type { LicenseFile, LicenseFiles } from '../licenses/license-file.js';
import { licenseJson } from '../licenses/licenses.presenter.js';
import { findLicenseRow } from '../licenses/licenses.service.js';
import type { LicenseRow } from '../licenses/licenses.schema.js';
import { machineJson, type MachineJson } from './machines.presenter.js';
import { borrowSeat, type BorrowAnswer } from './machines.repository.js';
import type { MachinesService } from './machines.service.js';

/** Who asks: an admin (any license) or a customer (their own licenses; another's reads as missing). */
export type FileAsker = { admin: true } | { customerId: string };

/**
 * Offline files under the floating-seat rules (decisions, wave 4, borrowing). A license without
 * floating seats gives files as before. One with floating seats gives only files bound to a
 * machine holding a seat, and each such file borrows that seat: its lease is extended to now +
 * `borrowHours` (never shortened) by one statement under the license's row lock, so no other
 * machine can take it while the file is valid (`validUntil` ≤ the lease, `borrowedUntil` in the
 * payload). `borrowHours` 0: no files (400 `Borrowing not allowed`).
 */
export function createOfflineFilesService(deps: {
  pool: pg.Pool;
  now: () => Date;
  files: LicenseFiles;
  machines: Pick<MachinesService, 'activate' | 'holder'>;
}) {
  const { pool, now, files } = deps;

  async function licenseOf(licenseId: string, asker: FileAsker) {
    const row = isUuid(licenseId) ? await findLicenseRow(pool, licenseId) : undefined;
    if (!row || ('customerId' in asker && row.customer_id !== asker.customerId)) throw appError('LICENSE_NOT_FOUND');
    return row;
  }

  /** The refusal of a borrow answer, if any, in the order the rules are read. */
  function refusal(answer: BorrowAnswer | undefined, hours: number | 'all') {
    if (!answer?.license_id) return appError('LICENSE_VALIDATION_NOT_FOUND');
    if (answer.verdict)
      return appError(verdictCodes[answer.verdict] ?? 'LICENSE_NOT_ACTIVE', { message: answer.verdict });
    if (answer.heartbeat_seconds !== null) {
      if (answer.borrow_hours === 0) return appError('BORROWING_NOT_ALLOWED');
      if (hours !== 'all' && hours > answer.borrow_hours)
        return appError('BORROW_HOURS_TOO_LONG', {
          details: { hours: `At most ${answer.borrow_hours} for this license` },
        });
    }
    if (!answer.machine) return appError('MACHINE_NOT_FOUND');
    return undefined;
  }

  /** Borrows (or, without floating seats, checks) the seat of `fingerprint`; answers the machine and the lease end lent. */
  async function borrow(license: { id: string } | { key: string }, fingerprint: string, hours: number | 'all') {
    const answer = await borrowSeat(pool, license, fingerprint, hours, now());
    const refused = refusal(answer, hours);
    if (refused) throw refused;
    const machine = machineJson(answer!.machine!);
    const borrowedUntil = answer!.heartbeat_seconds !== null ? (machine.leaseExpiresAt ?? undefined) : undefined;
    return { licenseId: answer!.license_id!, machine, borrowedUntil };
  }

  /** The signed file of the license as it is now (read after the borrow: its hardware ids include the machine). */
  async function fileOf(licenseId: string, fingerprint: string, borrowedUntil: string | undefined) {
    const row = await findLicenseRow(pool, licenseId);
    if (!row) throw appError('LICENSE_NOT_FOUND');
    const license = licenseJson(row);
    return { license, file: files.build(license, fingerprint, borrowedUntil) };
  }

  /** Floating seats, before a write: the rules that need no machine. */
  function floatingRules(row: LicenseRow, fingerprint: string | undefined) {
    if (row.heartbeat_seconds === null) return;
    if (row.borrow_hours === 0) throw appError('BORROWING_NOT_ALLOWED');
    if (fingerprint === undefined) throw appError('LICENSE_FILE_NOT_BOUND');
  }

  return {
    /** GET …/file of the admin and the portal: `fingerprint` binds it (and, floating, borrows the seat). */
    async download(
      asker: FileAsker,
      licenseId: string,
      fingerprint?: string,
    ): Promise<{ file: LicenseFile; contentDisposition: string }> {
      const row = await licenseOf(licenseId, asker);
      const license = licenseJson(row);
      const contentDisposition = files.contentDisposition(license);
      // The license's state first (as validation answers), then the seat.
      files.check(license);
      floatingRules(row, fingerprint);
      if (fingerprint === undefined) return { file: files.build(license), contentDisposition };
      if (row.heartbeat_seconds === null) {
        const file = files.build(license, fingerprint);
        await deps.machines.holder(row.id, fingerprint, 'customerId' in asker ? asker.customerId : undefined);
        return { file, contentDisposition };
      }
      const { borrowedUntil } = await borrow({ id: row.id }, fingerprint, 'all');
      return { file: (await fileOf(row.id, fingerprint, borrowedUntil)).file, contentDisposition };
    },

    /**
     * POST /api/license/machines/borrow: the application borrows its own seat for `hours` (at
     * most the license's borrowHours, else 400 `Borrowing period too long`). A license without
     * floating seats has no lease to extend: the machine must hold a seat, and the file is bound
     * to it and valid as any file (OFFLINE_FILE_DAYS, never past expiry).
     */
    async borrowByKey(input: { key: string; fingerprint: string; hours: number }) {
      const { licenseId, machine, borrowedUntil } = await borrow({ key: input.key }, input.fingerprint, input.hours);
      const { license, file } = await fileOf(licenseId, input.fingerprint, borrowedUntil);
      return { machine, file, license: { key: license.key, productId: license.product._id } };
    },

    /**
     * Air-gapped activation: the request code's machine takes a seat under the usual limits (the
     * machines service: same texts, MACHINE_ACTIVATED), then gets a bound file (borrowing its seat
     * on a floating license). Audited as an update of the license, by an admin or the customer.
     */
    async activateOffline(
      actor: Actor,
      asker: FileAsker,
      licenseId: string,
      requestCode: string,
    ): Promise<{ created: boolean; machine: MachineJson; file: LicenseFile }> {
      const row = await licenseOf(licenseId, asker);
      const request = decodeActivationRequest(requestCode);
      if (request.key.trim() !== row.key) throw appError('ACTIVATION_REQUEST_OTHER_LICENSE');
      files.check(licenseJson(row));
      // Refused before the seat is taken: a floating license that lends no seat gives no file.
      floatingRules(row, request.fingerprint);
      const activated = await deps.machines.activate(
        { key: row.key, fingerprint: request.fingerprint, name: request.name, platform: request.platform },
        null,
      );
      const lent =
        row.heartbeat_seconds === null
          ? { machine: activated.machine, borrowedUntil: undefined }
          : await borrow({ id: row.id }, request.fingerprint, 'all');
      const { file } = await fileOf(row.id, request.fingerprint, lent.borrowedUntil);
      await recordAudit(pool, actor, {
        action: 'update',
        resourceType: 'license',
        resourceId: row.id,
        before: { usedHwids: row.used_hwids },
        after: {
          offlineActivation: {
            fingerprint: request.fingerprint,
            name: request.name ?? null,
            by: 'customerId' in asker ? 'customer' : 'admin',
          },
          machine: lent.machine,
          created: activated.created,
        },
      });
      return { created: activated.created, machine: lent.machine, file };
    },
  };
}
export type OfflineFilesService = ReturnType<typeof createOfflineFilesService>;
