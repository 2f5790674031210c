import { z } from 'zod';
import { envBoolean, envInt, envList, envPort, envUrl, optionalString } from './env-types.js';

export const licenseSchema = {
  LICENSE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PORT: envPort(3000),
  LICENSE_PUBLIC_URL: envUrl(),
  LICENSE_DATABASE_URL: envUrl(),
  ADMIN_IDS: envList(),
  SESSION_TTL_HOURS: envInt(24, 1, 24 * 365),
  PANIC_MODE: envBoolean(false),
  RATE_LIMIT_ENABLED: envBoolean(true),
  RATE_LIMIT_WINDOW_MS: envInt(15 * 60 * 1000, 1000),
  RATE_LIMIT_MAX: envInt(200, 1),
  JWT_SECRET: optionalString(),
  JWT_PUBLIC_KEY: optionalString(),
};
