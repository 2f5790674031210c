import { createHash, verify, type KeyObject } from 'node:crypto';
import { isRecord, isString, publicKeyOf, strictBase64, verifySignedBody } from './signed.js';

// What an application embeds to trust the license service's answers without trusting the
// network: offline license files and signed validation responses, both Ed25519-signed with the
// key of GET /api/license/public-key. Node's crypto only, so it can be copied into any program.
// Machines (activation, heartbeats, floating seats): machines.ts.

export * from './machines.js';

export const licenseFileFormat = 'license-file/1';
/** The longest fingerprint (hwid) the service takes anywhere; longer ones are refused with 400. */
export const FINGERPRINT_MAX_LENGTH = 200;

/** The downloaded file, `*.lic.json`. */
export interface LicenseFile {
  format: string;
  /** Base64 of the payload's UTF-8 JSON bytes. */
  payload: string;
  /** Base64 Ed25519 signature of the decoded payload bytes (not of the base64 text). */
  signature: string;
  /** First 16 hex digits of the SHA-256 of the raw 32-byte public key (`keyIdOf`). */
  keyId: string;
}

/** The license as the file states it. */
export interface LicenseFilePayload {
  key: string;
  product: { _id: string; name: string };
  licenseType: string;
  expiresAt: string | null;
  ipLimit: number;
  hwidLimit: number;
  usedHwids: string[];
  /** The entitlements (feature codes) the license grants, sorted; [] in files made before entitlements existed. */
  entitlements: string[];
  issuedAt: string;
  /** After this the application must validate online again (never past expiresAt). */
  validUntil: string;
  /** Present when the file was bound to one machine (`?fingerprint=`): it is good on that machine only. */
  fingerprint?: string;
}

export type LicenseFileFailure =
  | 'malformed' // not a license file, or its payload is not the JSON it must be
  | 'unsupported-format' // a format other than license-file/1
  | 'unknown-key' // signed by another key than the one given
  | 'bad-signature' // the payload was changed, or was not signed by the service
  | 'expired' // validUntil has passed: validate online and download a new file
  | 'hwid-not-allowed' // this machine's hardware id is not among the license's
  | 'wrong-machine'; // the file is bound to another machine's fingerprint (or no hwid was given to check it)

export type LicenseFileResult =
  { valid: true; license: LicenseFilePayload } | { valid: false; reason: LicenseFileFailure };

export interface LicenseFileOptions {
  /** The time to check validUntil against (default: now). */
  now?: Date;
  /** This machine's hardware id: the file must list it in usedHwids, and a bound file must name it. */
  hwid?: string;
}

const isDateString = (value: unknown): value is string => isString(value) && !Number.isNaN(Date.parse(value));

/** The service's id of an Ed25519 public key: first 16 hex digits of the SHA-256 of its raw 32 bytes. */
export function keyIdOf(publicKeyPem: string | KeyObject): string {
  const x = publicKeyOf(publicKeyPem).export({ format: 'jwk' }).x;
  if (!x) throw new Error('Not an Ed25519 public key');
  return createHash('sha256').update(Buffer.from(x, 'base64url')).digest('hex').slice(0, 16);
}

function asLicenseFile(file: unknown): LicenseFile | undefined {
  let value = file;
  if (typeof value === 'string' || Buffer.isBuffer(value)) {
    try {
      value = JSON.parse(value.toString());
    } catch {
      return undefined;
    }
  }
  if (!isRecord(value)) return undefined;
  const { format, payload, signature, keyId } = value;
  if (!isString(format) || !isString(payload) || !isString(signature) || !isString(keyId)) return undefined;
  return { format, payload, signature, keyId };
}

function asPayload(value: unknown): LicenseFilePayload | undefined {
  if (!isRecord(value) || !isRecord(value.product)) return undefined;
  const {
    key,
    product,
    licenseType,
    expiresAt,
    ipLimit,
    hwidLimit,
    usedHwids,
    issuedAt,
    validUntil,
    fingerprint,
    entitlements = [],
  } = value;
  if (!isString(key) || !isString(product._id) || !isString(product.name) || !isString(licenseType)) return undefined;
  if (!(expiresAt === null || isDateString(expiresAt)) || !isDateString(issuedAt) || !isDateString(validUntil))
    return undefined;
  if (typeof ipLimit !== 'number' || typeof hwidLimit !== 'number') return undefined;
  if (!Array.isArray(usedHwids) || !usedHwids.every(isString)) return undefined;
  if (fingerprint !== undefined && !isString(fingerprint)) return undefined;
  if (!Array.isArray(entitlements) || !entitlements.every(isString)) return undefined;
  return {
    key,
    product: { _id: product._id, name: product.name },
    licenseType,
    expiresAt,
    ipLimit,
    hwidLimit,
    usedHwids,
    entitlements,
    issuedAt,
    validUntil,
    ...(fingerprint !== undefined ? { fingerprint } : {}),
  };
}

/**
 * Checks an offline license file (the parsed JSON, or its text): its format, that the service's
 * key signed exactly these payload bytes, that validUntil has not passed, and, given a hardware
 * id, that the license lists it; a file bound to a machine is good only with that machine's id. Only a `valid: true` answer carries the license.
 */
export function verifyLicenseFile(
  file: unknown,
  publicKeyPem: string | KeyObject,
  options: LicenseFileOptions = {},
): LicenseFileResult {
  const fail = (reason: LicenseFileFailure): LicenseFileResult => ({ valid: false, reason });
  const parsed = asLicenseFile(file);
  if (!parsed) return fail('malformed');
  if (parsed.format !== licenseFileFormat) return fail('unsupported-format');
  const key = publicKeyOf(publicKeyPem);
  if (parsed.keyId !== keyIdOf(key)) return fail('unknown-key');
  const bytes = strictBase64(parsed.payload);
  const signature = strictBase64(parsed.signature);
  if (!bytes || !signature) return fail('malformed');
  if (!verify(null, bytes, key, signature)) return fail('bad-signature');
  let license: LicenseFilePayload | undefined;
  try {
    license = asPayload(JSON.parse(bytes.toString('utf8')));
  } catch {
    license = undefined;
  }
  if (!license) return fail('malformed');
  const now = options.now ?? new Date();
  if (Date.parse(license.validUntil) <= now.getTime()) return fail('expired');
  if (license.fingerprint !== undefined && options.hwid !== license.fingerprint) return fail('wrong-machine');
  if (options.hwid !== undefined && !license.usedHwids.includes(options.hwid)) return fail('hwid-not-allowed');
  return { valid: true, license };
}

export type SignedValidationFailure =
  | 'missing-signature' // no X-License-Signature header
  | 'bad-signature' // the body was changed, or was not signed by the service
  | 'malformed' // the body is not the JSON object the service sends
  | 'nonce-mismatch' // an answer to another request (a replay)
  | 'license-invalid'; // authentic, and the service says the license is not valid (see `error`)

export type SignedValidationResult =
  | { valid: true; body: Record<string, unknown> & { license: Record<string, unknown> } }
  | {
      valid: false;
      reason: SignedValidationFailure;
      error?: string;
      /** The admin's reason for a suspension (`reason` of the body beside `error: "License suspended"`), when one was given. */
      suspendReason?: string;
      body?: Record<string, unknown>;
    };

/**
 * Checks an answer of POST /api/license/validate: `body` is the response body exactly as received
 * (bytes or text, before any JSON parsing), `signature` the X-License-Signature header (base64
 * Ed25519 of those bytes). Give the `nonce` the request carried to refuse a replayed answer.
 * `valid: true` only when the signature holds and the service said the license is valid.
 */
export function verifySignedValidation(
  body: Buffer | string,
  signature: string | null | undefined,
  publicKeyPem: string | KeyObject,
  options: { nonce?: string } = {},
): SignedValidationResult {
  const signed = verifySignedBody(body, signature, publicKeyPem);
  if (!signed.ok) return { valid: false, reason: signed.reason };
  const parsed = signed.body;
  if (options.nonce !== undefined && parsed.nonce !== options.nonce)
    return { valid: false, reason: 'nonce-mismatch', body: parsed };
  const { license } = parsed;
  if (parsed.valid !== true || !isRecord(license)) {
    return {
      valid: false,
      reason: 'license-invalid',
      ...(isString(parsed.error) ? { error: parsed.error } : {}),
      ...(isString(parsed.reason) ? { suspendReason: parsed.reason } : {}),
      body: parsed,
    };
  }
  return { valid: true, body: { ...parsed, license } };
}

/** What `hasEntitlement` reads: a checked file or answer (only a `valid: true` one counts), or what one carries. */
export type EntitlementSource =
  | LicenseFileResult
  | SignedValidationResult
  | LicenseFilePayload
  | { license?: unknown; valid?: unknown }
  | null
  | undefined;

/**
 * Whether the license grants the entitlement `code` (exact, case-sensitive), read from what
 * `verifyLicenseFile` or `verifySignedValidation` answered (or from the license or body they
 * carry). A refused file or answer grants nothing: check first, then ask.
 */
export function hasEntitlement(source: EntitlementSource, code: string): boolean {
  if (!isRecord(source) || source.valid === false) return false;
  const fields: Record<string, unknown> = source;
  // { valid: true, body: { license } } (a checked answer), { license } (a checked file, or an answer's body), or the license itself.
  const license = isRecord(fields.body) ? fields.body.license : 'license' in fields ? fields.license : fields;
  if (!isRecord(license) || !Array.isArray(license.entitlements)) return false;
  return license.entitlements.includes(code);
}
