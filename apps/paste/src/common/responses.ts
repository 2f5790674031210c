import { z } from 'zod';

// The answers every feature's JSON routes share.

export const successSchema = z.object({ success: z.literal(true) });
export const messageSchema = successSchema.extend({ message: z.string() });

/** The error body of the paste service's JSON answers. */
export const errorSchema = z.object({ error: z.string(), details: z.record(z.string(), z.string()).optional() });
