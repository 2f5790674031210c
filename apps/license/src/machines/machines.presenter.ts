import { z } from 'zod';
import type { MachineRecord, MachineRow } from './machines.repository.js';

const at = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** A machine as the API answers it; from a table row or from the seat functions' JSON. */
export function machineJson(row: MachineRow | MachineRecord) {
  return {
    _id: row.id!,
    license: row.license_id!,
    fingerprint: row.fingerprint!,
    name: row.name,
    platform: row.platform,
    lastIp: row.last_ip,
    activatedAt: at(row.activated_at)!,
    lastSeenAt: at(row.last_seen_at)!,
    leaseExpiresAt: at(row.lease_expires_at),
  };
}
export type MachineJson = ReturnType<typeof machineJson>;

export const machineJsonSchema = z.object({
  _id: z.string(),
  license: z.string(),
  fingerprint: z.string(),
  name: z.string().nullable(),
  platform: z.string().nullable(),
  lastIp: z.string().nullable(),
  activatedAt: z.iso.datetime(),
  lastSeenAt: z.iso.datetime(),
  leaseExpiresAt: z.iso.datetime().nullable(),
});
