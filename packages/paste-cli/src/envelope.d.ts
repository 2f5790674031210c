// Types of envelope.js (plain JavaScript, so that browsers load the very same file).

/** What an encrypted paste holds. */
export interface Payload {
  content: string;
  title?: string | null;
  language?: string | null;
  /** The names and types of the paste's attachments, in their order (inside the ciphertext only). */
  files?: PayloadFile[];
}

export interface PayloadFile {
  name: string;
  type?: string;
}

/**
 * What the server stores and answers: version, the key's hash (absent from envelopes made before
 * the key check), iv, ciphertext, and salt when a password went in.
 */
export interface Envelope {
  v: 1;
  keyHash?: string;
  iv: string;
  ciphertext: string;
  salt?: string;
}

export declare const ENVELOPE_VERSION: 1;
export declare const PBKDF2_ITERATIONS: number;
export declare const KEY_BYTES: number;
export declare const IV_BYTES: number;
export declare const SALT_BYTES: number;
export declare const DECRYPT_ERROR: 'Cannot decrypt: wrong key or damaged paste';
export declare const KEY_CHECK_INFO: 'paste-key-check';
export declare const KEY_CHECK_HEADER: 'X-Paste-Key-Check';

export declare class DecryptError extends Error {
  constructor();
}

export declare function toBase64Url(bytes: Uint8Array): string;
export declare function fromBase64Url(text: string): Uint8Array;
export declare function base64UrlByteLength(text: string): number;
export declare function newKey(): string;
/** base64url(HKDF-SHA-256(key, empty salt, info `paste-key-check`, 32 bytes)): sent as X-Paste-Key-Check. */
export declare function keyCheck(key: string): Promise<string>;
/** base64url(SHA-256(verifier)). */
export declare function keyHashOfCheck(check: string): Promise<string>;
/** The envelope's `keyHash` for `key`. */
export declare function keyHash(key: string): Promise<string>;
export declare function seal(
  payload: Payload,
  key: string,
  options?: { password?: string; iv?: Uint8Array; salt?: Uint8Array },
): Promise<Envelope>;
export declare function needsPassword(envelope: Envelope): boolean;
export declare function open(
  envelope: Envelope,
  key: string,
  password?: string,
): Promise<{ content: string; title: string | null; language: string | null; files?: PayloadFile[] }>;
