import { parseRows, type Queryable, type RowOf, tableRows } from '@app/db';
import { z } from 'zod';
import { machines } from './machines.table.js';

export type MachineRow = RowOf<typeof machines>;
/** A machine as `to_jsonb` answers it from the seat functions (timestamps as text). */
export type MachineRecord = Record<keyof MachineRow, string | null>;

const machineRows = tableRows(machines);
const machineRecord: z.ZodType<MachineRecord> = z.object({
  id: z.string().nullable(),
  license_id: z.string().nullable(),
  fingerprint: z.string().nullable(),
  name: z.string().nullable(),
  platform: z.string().nullable(),
  last_ip: z.string().nullable(),
  activated_at: z.string().nullable(),
  last_seen_at: z.string().nullable(),
  lease_expires_at: z.string().nullable(),
});
/** A machine the sweep removed, with its license. */
const sweptRow = z.object({ license_id: z.string(), license_key: z.string(), machine: machineRecord });

export type SeatOperation = 'activate' | 'heartbeat' | 'deactivate';
export interface SeatRequest {
  key: string;
  fingerprint: string;
  name: string | null;
  platform: string | null;
  ip: string | null;
}
export interface SeatAnswer {
  error: string | null;
  created: boolean;
  license_id: string | null;
  license_key: string | null;
  machine: MachineRecord | null;
  lapsed_hwids: string[];
  product_id: string | null;
}

/**
 * One call of `license_machine_seat_v2` (machine-seat.sql, migration 0018): reads the license
 * under its row lock, decides and writes the machine and the license's hardware ids at once.
 */
export async function takeOrReleaseSeat(
  db: Queryable,
  op: SeatOperation,
  request: SeatRequest,
  now: Date,
): Promise<SeatAnswer> {
  // row-check: hot path, asserted for speed
  const { rows } = await db.query<SeatAnswer>({
    name: 'license-machine-seat-v2',
    text: 'SELECT * FROM license_machine_seat_v2($1, $2, $3, $4, $5, $6, $7::timestamptz)',
    values: [op, request.key, request.fingerprint, request.name, request.platform, request.ip, now],
  });
  return rows[0]!;
}

/** Removes the lapsed machines of one license (see machine-seat.sql); none answered when nothing is due. */
export async function sweepOneLicense(db: Queryable, now: Date) {
  const { rows } = await db.query('SELECT * FROM license_machines_sweep($1::timestamptz)', [now]);
  return parseRows(sweptRow, rows);
}

/** A license's machines in the order of its hardware ids: oldest first. */
export async function listMachines(db: Queryable, licenseId: string): Promise<MachineRow[]> {
  const { rows } = await db.query(
    `SELECT m.* FROM machines m JOIN licenses l ON l.id = m.license_id
     WHERE m.license_id = $1 ORDER BY array_position(l.used_hwids, m.fingerprint), m.activated_at`,
    [licenseId],
  );
  return machineRows(rows);
}

export async function findMachine(
  db: Queryable,
  licenseId: string,
  machineId: string,
): Promise<MachineRow | undefined> {
  const { rows } = await db.query('SELECT * FROM machines WHERE license_id = $1 AND id = $2', [licenseId, machineId]);
  return machineRows(rows)[0];
}
