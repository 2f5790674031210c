import { z } from 'zod';
import { appError } from '../common/error-codes.js';
import { fingerprintSchema } from '../common/fingerprint.js';

/**
 * An air-gapped machine's activation request (decisions, wave 4), as the client package's
 * `createActivationRequest` writes it: base64url of the UTF-8 JSON `{ v: 1, k: key,
 * f: fingerprint, n?: name, p?: platform, t: created (Unix seconds) }`. One-letter names keep
 * it under 600 characters, so it fits a QR code a phone can read off the machine's screen.
 */
export const activationRequestMaxLength = 600;

const requestJson = z.object({
  v: z.literal(1),
  k: z.string().trim().min(1).max(200),
  f: fingerprintSchema,
  n: z.string().trim().min(1).max(100).optional(),
  p: z.string().trim().min(1).max(50).optional(),
  t: z.number().int().nonnegative().optional(),
});

export interface ActivationRequest {
  key: string;
  fingerprint: string;
  name?: string;
  platform?: string;
}

/** The body of both offline activation routes; whitespace a copy added (line breaks of a textarea) is dropped. */
export const offlineActivationSchema = z.object({
  requestCode: z
    .string()
    .max(activationRequestMaxLength * 2)
    .transform((code) => code.replace(/\s+/g, '')),
});

/** The request a code carries; 400 `Activation request code is not valid` for anything else. */
export function decodeActivationRequest(code: string): ActivationRequest {
  const invalid = () => appError('ACTIVATION_REQUEST_INVALID');
  if (!/^[A-Za-z0-9_-]{1,800}$/.test(code)) throw invalid();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(code, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const parsed = requestJson.safeParse(json);
  if (!parsed.success) throw invalid();
  const { k, f, n, p } = parsed.data;
  return {
    key: k,
    fingerprint: f,
    ...(n !== undefined ? { name: n } : {}),
    ...(p !== undefined ? { platform: p } : {}),
  };
}
