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

/** One seat call of a batch. */
export interface SeatCall {
  op: SeatOperation;
  request: SeatRequest;
}

/**
 * Many seat calls in one statement, `license_machine_seat_batch_v1` (machine-seat.sql, migration
 * 0023): each runs `license_machine_seat_v3`, which reads the license under its row lock, decides
 * and writes the machine and the license's hardware ids at once. Answers one result per call, in
 * order.
 */
export async function takeOrReleaseSeats(db: Queryable, calls: SeatCall[], now: Date): Promise<SeatAnswer[]> {
  // row-check: hot path, asserted for speed
  const { rows } = await db.query<SeatAnswer & { n: number }>({
    name: 'license-machine-seat-batch-v1',
    text: 'SELECT * FROM license_machine_seat_batch_v1($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz)',
    values: [
      calls.map((call) => call.op),
      calls.map((call) => call.request.key),
      calls.map((call) => call.request.fingerprint),
      calls.map((call) => call.request.name),
      calls.map((call) => call.request.platform),
      calls.map((call) => call.request.ip),
      now,
    ],
  });
  const answers = new Array<SeatAnswer>(calls.length);
  for (const row of rows) answers[row.n - 1] = row;
  return answers;
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

/** What `borrowSeat` read and wrote: null `license_id` when no license has that id or key. */
const borrowAnswer = z.object({
  license_id: z.string().nullable(),
  /** Validation's refusal text for the key's state (revoked, suspended, not active, expired, its master's), or null. */
  verdict: z.string().nullable(),
  heartbeat_seconds: z.number().int().nullable(),
  borrow_hours: z.number().int(),
  /** The machine after the statement: its lease extended on a floating license; null when it holds no seat or nothing was written. */
  machine: machineRecord.nullable(),
});
export type BorrowAnswer = z.infer<typeof borrowAnswer>;

/**
 * Borrowing (decisions, wave 4): extends the lease of the seat `fingerprint` holds to now +
 * `hours` (never shortened), in one statement under the license's row lock, as the seat
 * functions take and give seats: a machine whose lease ran out (`< now`, their rule) holds no
 * seat, and one with a future lease keeps it against any other fingerprint until then. Nothing
 * is written unless the license is in a valid state and, when floating, lends at least `hours`
 * (`borrow_hours`). A license without floating seats keeps its lease (null): the machine is only
 * checked. The answer says which rule refused, so the caller answers the right text.
 */
export async function borrowSeat(
  db: Queryable,
  license: { id: string } | { key: string },
  fingerprint: string,
  hours: number | 'all',
  now: Date,
): Promise<BorrowAnswer | undefined> {
  const [column, value] = 'id' in license ? ['l.id', license.id] : ['l.key', license.key];
  const { rows } = await db.query({
    text: `WITH lic AS MATERIALIZED (
        SELECT l.id, l.heartbeat_seconds, l.borrow_hours,
          -- Validation's verdict (licenses/license-state.sql): its own state, then its master's.
          coalesce(
            license_state_verdict(l.revoked, l.suspended, l.active, l.expires_at, l.grace_days, l.expiration_strategy, $3),
            CASE WHEN l.parent_id IS NOT NULL THEN (
              SELECT license_master_verdict(m.id IS NOT NULL, m.revoked, m.suspended, m.active, m.expires_at,
                m.grace_days, m.expiration_strategy, $3)
              FROM (SELECT l.parent_id AS parent_id) parent LEFT JOIN licenses m ON m.id = parent.parent_id) END
          ) AS verdict,
          coalesce($4::int, l.borrow_hours) AS hours
        FROM licenses l WHERE ${column} = $1 FOR UPDATE OF l
      ), borrowed AS (
        UPDATE machines mc SET lease_expires_at = CASE
            WHEN lic.heartbeat_seconds IS NULL THEN mc.lease_expires_at
            ELSE GREATEST(mc.lease_expires_at, $3::timestamptz + make_interval(hours => lic.hours)) END
        FROM lic
        WHERE mc.license_id = lic.id AND mc.fingerprint = $2 AND lic.verdict IS NULL
          AND (lic.heartbeat_seconds IS NULL OR (lic.hours BETWEEN 1 AND lic.borrow_hours AND mc.lease_expires_at >= $3))
        RETURNING mc.*
      )
      SELECT lic.id AS license_id, lic.verdict, lic.heartbeat_seconds, lic.borrow_hours,
        (SELECT to_jsonb(b) FROM borrowed b) AS machine
      FROM lic`,
    values: [value, fingerprint, now, hours === 'all' ? null : hours],
  });
  return parseRows(borrowAnswer, rows)[0];
}
