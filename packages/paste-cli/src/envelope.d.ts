// Types of envelope.js (plain JavaScript, so that browsers load the very same file).

/** What an encrypted paste holds. */
export interface Payload {
  content: string;
  title?: string | null;
  language?: string | null;
}

/** What the server stores and answers: version, iv, ciphertext, and salt when a password went in. */
export interface Envelope {
  v: 1;
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

export declare class DecryptError extends Error {
  constructor();
}

export declare function toBase64Url(bytes: Uint8Array): string;
export declare function fromBase64Url(text: string): Uint8Array;
export declare function base64UrlByteLength(text: string): number;
export declare function newKey(): string;
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
): Promise<{ content: string; title: string | null; language: string | null }>;
