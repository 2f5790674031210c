import { z } from 'zod';

export const createApiKeySchema = z.object({
  name: z.string().trim().min(1, 'Name is required').max(100),
});

export const apiKeyParamsSchema = z.object({
  id: z.uuid(),
});

/** An API key as listed (JSON: dates as ISO strings); the secret itself is never listed. */
export const apiKeySummarySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
});
