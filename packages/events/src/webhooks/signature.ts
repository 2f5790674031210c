import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header carrying the signature of every webhook delivery. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Webhook-Signature';

/** Hex HMAC-SHA256 of `<t>.<raw body>`: the timestamp is signed too, so an old delivery cannot be replayed as new. */
function digest(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The `X-Webhook-Signature` value for a raw body: `t=<unix seconds>,v1=<hex>`. */
export function signWebhookPayload(secret: string, body: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${digest(secret, timestampSeconds, body)}`;
}

export interface VerifyWebhookOptions {
  /** The header value as received. */
  header: string | undefined | null;
  /** The raw request body exactly as received (not re-serialised JSON). */
  body: string | Buffer;
  secret: string;
  /** Largest accepted age of `t` in seconds (default 300); 0 turns the check off. */
  toleranceSeconds?: number;
  /** Current time in ms (tests). */
  now?: number;
}

/**
 * Checks a webhook delivery's signature the way receivers should: constant-time comparison of
 * every `v1` value against the expected digest, and `t` within the tolerance.
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): boolean {
  if (!options.header) return false;
  const parts = options.header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
  if (!Number.isInteger(timestamp) || signatures.length === 0) return false;
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (tolerance > 0 && Math.abs(nowSeconds - timestamp) > tolerance) return false;
  const body = typeof options.body === 'string' ? options.body : options.body.toString('utf8');
  const expected = Buffer.from(digest(options.secret, timestamp, body), 'hex');
  return signatures.some((signature) => {
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
