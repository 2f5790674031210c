import { createLogger, type Logger, type LoggerOptions } from '@app/http/logger';
import { maskLicenseKeys } from './license-key.js';

/** The license service's logger: a license key in any line is masked to its prefix and last 4 characters. */
export function createLicenseLogger(options: Omit<LoggerOptions, 'name' | 'maskLine'> = {}): Logger {
  return createLogger({ ...options, name: 'license', maskLine: maskLicenseKeys });
}
