import { z } from 'zod';

const key = z.string().trim().min(1, 'License key is required').max(200);
const fingerprint = z.string().trim().min(1).max(200);

export const activateMachineSchema = z.object({
  key, fingerprint,
  name: z.string().trim().min(1).max(100).optional(),
  platform: z.string().trim().min(1).max(50).optional(),
});
export const machineSeatSchema = z.object({ key, fingerprint });
export const machineParams = z.object({ id: z.string(), machineId: z.string() });

export type ActivateMachine = z.infer<typeof activateMachineSchema>;
export type MachineSeat = z.infer<typeof machineSeatSchema>;
