import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The filesystem store's presigned URLs: the service's own URLs carrying an expiry and an
 * HMAC-SHA-256 over everything the URL allows (method, key, expiry, the upload's size, the
 * download's file name), so none of them can be changed or reused for another request.
 */
export interface SignedRequest {
  method: 'PUT' | 'GET';
  key: string;
  /** Unix time in seconds after which the URL is refused. */
  expires: number;
  /** PUT: the exact byte count. */
  size?: number;
  /** GET: the Content-Disposition file name. */
  fileName?: string;
}

// Fields joined by a newline, which no field can hold (keys and numbers cannot; a file name
// with one is refused by the store before signing).
function signatureOf(secret: string | Uint8Array, request: SignedRequest): string {
  const fields = [
    'object-url-v1',
    request.method,
    request.key,
    request.expires,
    request.size ?? '',
    request.fileName ?? '',
  ];
  return createHmac('sha256', secret).update(fields.join('\n')).digest('base64url');
}

/** The query string (without `?`) that signs `request`. */
export function signedQuery(secret: string | Uint8Array, request: SignedRequest): string {
  const query = new URLSearchParams({ expires: String(request.expires) });
  if (request.size !== undefined) query.set('size', String(request.size));
  if (request.fileName !== undefined) query.set('name', request.fileName);
  query.set('signature', signatureOf(secret, request));
  return query.toString();
}

export type Verdict = { ok: true; request: SignedRequest } | { ok: false; reason: 'invalid' | 'expired' };

/** Reads and checks a signed URL's query for `method` and `key` at `nowSeconds`. */
export function verifySignedQuery(
  secret: string | Uint8Array,
  method: 'PUT' | 'GET',
  key: string,
  query: URLSearchParams,
  nowSeconds: number,
): Verdict {
  const expires = wholeNumber(query.get('expires'));
  const sizeText = query.get('size');
  const size = sizeText === null ? undefined : wholeNumber(sizeText);
  const fileName = query.get('name') ?? undefined;
  const signature = query.get('signature');
  if (expires === undefined || Number.isNaN(expires) || Number.isNaN(size) || signature === null)
    return { ok: false, reason: 'invalid' };
  if ((method === 'PUT') !== (size !== undefined)) return { ok: false, reason: 'invalid' };
  const request: SignedRequest = { method, key, expires, size, fileName };
  const expected = Buffer.from(signatureOf(secret, request));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  // Checked after the signature, so that only a genuine URL is told it has lapsed.
  if (nowSeconds > expires) return { ok: false, reason: 'expired' };
  return { ok: true, request };
}

function wholeNumber(text: string | null): number | undefined {
  if (text === null) return undefined;
  return /^\d{1,15}$/.test(text) ? Number(text) : NaN;
}
