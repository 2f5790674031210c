import { z } from 'zod';

/**
 * The longest fingerprint (hwid) anywhere: validate's `hwid`, machines' `fingerprint`, offline
 * files' `?fingerprint=`, a customer's release of a hwid, and so the usage records. The client
 * package's FINGERPRINT_MAX_LENGTH is the same number (a test holds them equal).
 */
export const FINGERPRINT_MAX_LENGTH = 200;
export const fingerprintTooLong = `At most ${FINGERPRINT_MAX_LENGTH} characters`;
/** A machine's fingerprint is the hwid a validation sends: one rule for every entry point (1–200 characters). */
export const fingerprintSchema = z.string().trim().min(1).max(FINGERPRINT_MAX_LENGTH, fingerprintTooLong);
