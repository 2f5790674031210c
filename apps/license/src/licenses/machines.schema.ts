import { z } from 'zod';

const key = z.string().trim().min(1, 'License key is required').max(200);
/**
 * The longest fingerprint (hwid) anywhere: validate's `hwid`, machines' `fingerprint`, offline
 * files' `?fingerprint=`, a customer's release of a hwid, and so the usage records. The client
 * package's FINGERPRINT_MAX_LENGTH is the same number (a test holds them equal).
 */
export const FINGERPRINT_MAX_LENGTH = 200;
export const fingerprintTooLong = `At most ${FINGERPRINT_MAX_LENGTH} characters`;
/** A machine's fingerprint is the hwid a validation sends: one rule for every entry point (1–200 characters). */
export const fingerprintSchema = z.string().trim().min(1).max(FINGERPRINT_MAX_LENGTH, fingerprintTooLong);
const fingerprint = fingerprintSchema;
/** Echoed in the signed answer, as validate does, so that a recorded answer cannot be replayed. */
const nonce = z.string().min(1).max(256).optional();

export const activateMachineSchema = z.object({
  key,
  fingerprint,
  nonce,
  name: z.string().trim().min(1).max(100).optional(),
  platform: z.string().trim().min(1).max(50).optional(),
});
export const machineSeatSchema = z.object({ key, fingerprint, nonce });
/** Borrowing: at most the license's borrowHours (decisions, wave 4), which is at most 720. */
export const borrowMachineSchema = z.object({ key, fingerprint, nonce, hours: z.number().int().min(1).max(720) });
export const machineParams = z.object({ id: z.string(), machineId: z.string() });

export type ActivateMachine = z.infer<typeof activateMachineSchema>;
export type MachineSeat = z.infer<typeof machineSeatSchema>;
export type BorrowMachine = z.infer<typeof borrowMachineSchema>;
