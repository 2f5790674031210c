import { z } from 'zod';

const code = (max: number) => z.string().trim().min(1).max(max);

export const enableBodySchema = z.object({ token: code(16) });
export type EnableBody = z.infer<typeof enableBodySchema>;

export const verifyBodySchema = z
  .object({
    token: code(16).optional(),
    backupCode: code(64).optional(),
  })
  .refine((body) => body.token || body.backupCode, { message: 'token or backupCode is required', path: ['token'] });
export type VerifyBody = z.infer<typeof verifyBodySchema>;

export const disableBodySchema = z.object({ password: z.string().max(1024).optional() });
export type DisableBody = z.infer<typeof disableBodySchema>;
