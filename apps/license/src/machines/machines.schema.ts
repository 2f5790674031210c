import { z } from 'zod';
import { fingerprintSchema } from '../common/fingerprint.js';

const key = z.string().trim().min(1, 'License key is required').max(200);
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
