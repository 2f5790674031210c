import type { RequestHandler } from 'express';
import { appError, errorCodes } from '../common/error-codes.js';
import type { SettingsStore } from '@app/settings';
import type { LicenseSettings } from '../runtime-config/runtime-config.schema.js';

export const panicMessage = errorCodes.PANIC_MODE.message;

export function isPanicMode(settings: SettingsStore<LicenseSettings>): boolean {
  return settings.get().security.panicMode;
}

/**
 * 503 while panic mode is on. Mount it in front of every public API (validation, customer API,
 * the marketplace receiver); admin routes stay reachable so an admin can turn it off.
 */
export function createPanicGuard(settings: SettingsStore<LicenseSettings>): RequestHandler {
  return (_req, _res, next) => next(isPanicMode(settings) ? appError('PANIC_MODE') : undefined);
}

/** `PANIC_MODE=true` at start-up switches panic mode on for every instance (an admin may turn it off). */
export async function applyPanicModeFromEnvironment(
  settings: SettingsStore<LicenseSettings>,
  panicFromEnv: boolean,
): Promise<void> {
  if (panicFromEnv && !isPanicMode(settings)) {
    await settings.update({ security: { ...settings.get().security, panicMode: true } });
  }
}
