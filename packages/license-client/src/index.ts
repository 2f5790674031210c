import { verify } from 'node:crypto';
import { clockRolledBack, clockRolledBackSync, createFileClockStore, type ClockStore } from './clock.js';
import {
  answersRequest,
  expectedRequest,
  isRecord,
  isString,
  keyById,
  strictBase64,
  verifySignedBody,
  type PublicKeys,
  type SentRequest,
} from './signed.js';

// What an application embeds to trust the license service's answers without trusting the
// network: offline license files and signed validation responses, both Ed25519-signed with the
// key of GET /api/license/public-key. Node's crypto only, so it can be copied into any program.
// Machines (activation, heartbeats, floating seats): machines.ts. Clock rollback: clock.ts.

export * from './machines.js';
export {
  clockToleranceMs,
  createFileClockStore,
  defaultClockFile,
  type ClockStore,
  type SyncClockStore,
} from './clock.js';
export { keyIdOf, type AnsweredRequest, type PublicKeyInput, type PublicKeys, type SentRequest } from './signed.js';
export * from './offline-activation.js';
export * from './updates.js';

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
  /** The signing key's id: first 16 hex digits of the SHA-256 of the raw 32-byte public key (`keyIdOf`). */
  keyId: string;
  /** The same id under its new name; files made before key rotation have `keyId` only. */
  kid?: string;
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
  /** The service's clock when it made the file. */
  issuedAt: string;
  /** After this the application must validate online again (never past expiresAt, or past graceEndsAt in grace). */
  validUntil: string;
  /** Present when the file was bound to one machine (`?fingerprint=`): it is good on that machine only. */
  fingerprint?: string;
  /** The license has expired and is in its grace days until then. */
  graceEndsAt?: string;
  /** `true`: the license expired, and its strategy (`maintain`) keeps it working. */
  expired?: boolean;
  /** The file borrowed a floating seat until then (validUntil is not later). */
  borrowedUntil?: string;
}

export type LicenseFileFailure =
  | 'malformed' // not a license file, or its payload is not the JSON it must be
  | 'unsupported-format' // a format other than license-file/1
  | 'unknown-key' // signed by another key than the ones given
  | 'bad-signature' // the payload was changed, or was not signed by the service
  | 'expired' // validUntil (or graceEndsAt) has passed: validate online and download a new file
  | 'hwid-not-allowed' // this machine's hardware id is not among the license's
  | 'wrong-machine' // the file is bound to another machine's fingerprint (or no hwid was given to check it)
  | 'wrong-product' // a license of another product than the `productId` given
  | 'clock-rolled-back'; // the local clock is more than 24 h earlier than the latest issuedAt verified

export type LicenseFileResult =
  | {
      valid: true;
      license: LicenseFilePayload;
      /** The license has expired and is within its grace days (`license.graceEndsAt`). */
      inGrace: boolean;
      /** The license has expired and its strategy keeps it working (`license.expired`). */
      expired: boolean;
    }
  | { valid: false; reason: LicenseFileFailure };

export interface LicenseFileOptions {
  /** The time to check validUntil against (default: now). */
  now?: Date;
  /** This machine's hardware id: the file must list it in usedHwids, and a bound file must name it. */
  hwid?: string;
  /** The application's product: a file of another product's license is refused (`wrong-product`). */
  productId?: string;
  /**
   * Where the latest verified issuedAt is kept (see `createFileClockStore`). `verifyLicenseFile`
   * checks the clock only when a store is given; `checkLicenseFile` uses the default file unless
   * this is `false`.
   */
  clock?: ClockStore | false;
}

const isDateString = (value: unknown): value is string => isString(value) && !Number.isNaN(Date.parse(value));

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
  const { format, payload, signature, keyId, kid } = value;
  if (!isString(format) || !isString(payload) || !isString(signature)) return undefined;
  if (!isString(keyId) && !isString(kid)) return undefined;
  if ((keyId !== undefined && !isString(keyId)) || (kid !== undefined && !isString(kid))) return undefined;
  // A rotated service writes both, equal; a file whose two differ is not one it made.
  if (isString(keyId) && isString(kid) && keyId !== kid) return undefined;
  return { format, payload, signature, keyId: (kid ?? keyId) as string, ...(isString(kid) ? { kid } : {}) };
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
    graceEndsAt,
    expired,
    borrowedUntil,
    entitlements = [],
  } = value;
  if (!isString(key) || !isString(product._id) || !isString(product.name) || !isString(licenseType)) return undefined;
  if (!(expiresAt === null || isDateString(expiresAt)) || !isDateString(issuedAt) || !isDateString(validUntil))
    return undefined;
  if (typeof ipLimit !== 'number' || typeof hwidLimit !== 'number') return undefined;
  if (!Array.isArray(usedHwids) || !usedHwids.every(isString)) return undefined;
  if (fingerprint !== undefined && !isString(fingerprint)) return undefined;
  if (!Array.isArray(entitlements) || !entitlements.every(isString)) return undefined;
  if (graceEndsAt !== undefined && !isDateString(graceEndsAt)) return undefined;
  if (borrowedUntil !== undefined && !isDateString(borrowedUntil)) return undefined;
  if (expired !== undefined && typeof expired !== 'boolean') return undefined;
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
    ...(graceEndsAt !== undefined ? { graceEndsAt } : {}),
    ...(expired !== undefined ? { expired } : {}),
    ...(borrowedUntil !== undefined ? { borrowedUntil } : {}),
  };
}

/** A file's checks but the clock's: the result, and the license when its signature held. */
function checkFile(
  file: unknown,
  publicKeys: PublicKeys,
  options: LicenseFileOptions,
): { result: LicenseFileResult; signed?: LicenseFilePayload } {
  const fail = (reason: LicenseFileFailure, signed?: LicenseFilePayload) => ({
    result: { valid: false as const, reason },
    ...(signed ? { signed } : {}),
  });
  const parsed = asLicenseFile(file);
  if (!parsed) return fail('malformed');
  if (parsed.format !== licenseFileFormat) return fail('unsupported-format');
  const key = keyById(publicKeys, parsed.keyId);
  if (!key) return fail('unknown-key');
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
  const now = (options.now ?? new Date()).getTime();
  if (Date.parse(license.validUntil) <= now) return fail('expired', license);
  if (license.graceEndsAt !== undefined && Date.parse(license.graceEndsAt) <= now) return fail('expired', license);
  if (license.fingerprint !== undefined && options.hwid !== license.fingerprint) return fail('wrong-machine', license);
  if (options.hwid !== undefined && !license.usedHwids.includes(options.hwid)) return fail('hwid-not-allowed', license);
  if (options.productId !== undefined && license.product._id !== options.productId)
    return fail('wrong-product', license);
  const inGrace =
    license.graceEndsAt !== undefined &&
    license.expiresAt !== null &&
    now > Date.parse(license.expiresAt) &&
    now < Date.parse(license.graceEndsAt);
  return { result: { valid: true, license, inGrace, expired: license.expired === true }, signed: license };
}

const rolledBackFile: LicenseFileResult = { valid: false, reason: 'clock-rolled-back' };

/**
 * Checks an offline license file (the parsed JSON, or its text): its format, that one of the
 * service's keys (picked by the file's `kid`) signed exactly these payload bytes, that
 * validUntil (and graceEndsAt) has not passed, and, given a hardware id, that the license lists
 * it; a file bound to a machine is good only with that machine's id. Given `productId`, the
 * license must be of that product. Given a `clock` store, a file is refused while the local
 * clock is more than 24 h earlier than the latest issuedAt verified. Synchronous; see
 * `checkLicenseFile` for the default clock store. Only a `valid: true` answer carries the license.
 */
export function verifyLicenseFile(
  file: unknown,
  publicKeys: PublicKeys,
  options: LicenseFileOptions = {},
): LicenseFileResult {
  const { result, signed } = checkFile(file, publicKeys, options);
  if (signed && options.clock && clockRolledBackSync(options.clock, signed.issuedAt, options.now ?? new Date()))
    return rolledBackFile;
  return result;
}

/**
 * `verifyLicenseFile`, with the clock rollback check on by default: the latest issuedAt is kept
 * in `createFileClockStore()`'s file unless `clock` names another store (which may load and save
 * asynchronously) or is `false`.
 */
export async function checkLicenseFile(
  file: unknown,
  publicKeys: PublicKeys,
  options: LicenseFileOptions = {},
): Promise<LicenseFileResult> {
  const { result, signed } = checkFile(file, publicKeys, options);
  const store = options.clock === undefined ? createFileClockStore() : options.clock;
  if (signed && store && (await clockRolledBack(store, signed.issuedAt, options.now ?? new Date())))
    return rolledBackFile;
  return result;
}

export type SignedValidationFailure =
  | 'missing-signature' // no X-License-Signature header
  | 'bad-signature' // the body was changed, or was not signed by the service
  | 'unknown-key' // the X-License-Key-Id given names none of the keys given
  | 'malformed' // the body is not the JSON object the service sends
  | 'nonce-mismatch' // an answer to another request (a replay)
  | 'wrong-request' // an answer about another key, hwid or entitlements than the request sent (a proxy changed it)
  | 'wrong-product' // a valid license of another product than the `productId` given
  | 'clock-rolled-back' // the local clock is more than 24 h earlier than the latest issuedAt verified
  | 'license-invalid'; // authentic, and the service says the license is not valid (see `error`)

export type SignedValidationResult =
  | {
      valid: true;
      body: Record<string, unknown> & { license: Record<string, unknown> };
      /** The license has expired and is within its grace days (`body.license.graceEndsAt`). */
      inGrace: boolean;
      /** The license has expired and its strategy keeps it working (`body.license.expired`). */
      expired: boolean;
    }
  | {
      valid: false;
      reason: SignedValidationFailure;
      error?: string;
      /** The admin's reason for a suspension (`reason` of the body beside `error: "License suspended"`), when one was given. */
      suspendReason?: string;
      body?: Record<string, unknown>;
    };

export interface SignedValidationOptions {
  /** The nonce the request carried: an answer with another is a replay (`nonce-mismatch`). */
  nonce?: string;
  /**
   * What the request sent (`key`, `hwid`, `entitlements`): the answer's `request` must state
   * exactly that, and the nonce, or it answers another request (`wrong-request`).
   */
  request?: SentRequest;
  /** The application's product: a valid answer about another product's license is refused (`wrong-product`). */
  productId?: string;
  /** The X-License-Key-Id header: picks the key among several (`unknown-key` when none has that id). */
  keyId?: string | null;
  /** The local clock (default: now), for the rollback check. */
  now?: Date;
  /**
   * Where the latest verified issuedAt is kept. `verifySignedValidation` checks the clock only
   * when a store is given; `checkSignedValidation` uses the default file unless this is `false`.
   */
  clock?: ClockStore | false;
}

/** An answer's checks but the clock's: the result, and the body when it is authentic and answers this request. */
function checkValidation(
  body: Buffer | string,
  signature: string | null | undefined,
  publicKeys: PublicKeys,
  options: SignedValidationOptions,
): { result: SignedValidationResult; answered?: Record<string, unknown> } {
  const signed = verifySignedBody(body, signature, publicKeys, options.keyId);
  if (!signed.ok) return { result: { valid: false, reason: signed.reason } };
  const parsed = signed.body;
  if (options.nonce !== undefined && parsed.nonce !== options.nonce)
    return { result: { valid: false, reason: 'nonce-mismatch', body: parsed } };
  if (options.request && !answersRequest(parsed, expectedRequest(options.request, options.nonce)))
    return { result: { valid: false, reason: 'wrong-request', body: parsed } };
  const { license } = parsed;
  if (parsed.valid !== true || !isRecord(license)) {
    const result: SignedValidationResult = {
      valid: false,
      reason: 'license-invalid',
      ...(isString(parsed.error) ? { error: parsed.error } : {}),
      ...(isString(parsed.reason) ? { suspendReason: parsed.reason } : {}),
      body: parsed,
    };
    return { result, answered: parsed };
  }
  if (options.productId !== undefined && license.productId !== options.productId)
    return { result: { valid: false, reason: 'wrong-product', body: parsed }, answered: parsed };
  const result: SignedValidationResult = {
    valid: true,
    body: { ...parsed, license },
    inGrace: isString(license.graceEndsAt),
    expired: license.expired === true,
  };
  return { result, answered: parsed };
}

const rolledBackAnswer = (body: Record<string, unknown>): SignedValidationResult => ({
  valid: false,
  reason: 'clock-rolled-back',
  body,
});

/**
 * Checks an answer of POST /api/license/validate: `body` is the response body exactly as received
 * (bytes or text, before any JSON parsing), `signature` the X-License-Signature header (base64
 * Ed25519 of those bytes), `publicKeys` the service's key or keys. Give the `nonce` the request
 * carried to refuse a replayed answer, the `request` it sent to refuse an answer about another
 * key or hwid, and the application's `productId` to refuse another product's license.
 * `valid: true` only when the signature holds, the answer is about this request, and the service
 * said the license is valid. Synchronous; the clock rollback check runs when `clock` is given
 * (see `checkSignedValidation` for the default store).
 */
export function verifySignedValidation(
  body: Buffer | string,
  signature: string | null | undefined,
  publicKeys: PublicKeys,
  options: SignedValidationOptions = {},
): SignedValidationResult {
  const { result, answered } = checkValidation(body, signature, publicKeys, options);
  if (answered && options.clock && clockRolledBackSync(options.clock, answered.issuedAt, options.now ?? new Date()))
    return rolledBackAnswer(answered);
  return result;
}

/**
 * `verifySignedValidation`, with the clock rollback check on by default: the latest issuedAt is
 * kept in `createFileClockStore()`'s file unless `clock` names another store (which may load and
 * save asynchronously) or is `false`.
 */
export async function checkSignedValidation(
  body: Buffer | string,
  signature: string | null | undefined,
  publicKeys: PublicKeys,
  options: SignedValidationOptions = {},
): Promise<SignedValidationResult> {
  const { result, answered } = checkValidation(body, signature, publicKeys, options);
  const store = options.clock === undefined ? createFileClockStore() : options.clock;
  if (answered && store && (await clockRolledBack(store, answered.issuedAt, options.now ?? new Date())))
    return rolledBackAnswer(answered);
  return result;
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
