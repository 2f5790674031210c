// Types of file-stream.js (plain JavaScript, so that browsers load the very same file).

export declare const FILE_FORMAT_VERSION: 1;
export declare const FILE_MAGIC: 'PSF1';
export declare const FILE_SALT_BYTES: number;
export declare const FILE_HEADER_BYTES: number;
export declare const FILE_CHUNK_BYTES: number;
export declare const FILE_TAG_BYTES: number;
export declare const FILE_KEY_INFO: 'paste-file-v1';

/** The encrypted file's size for `plainSize` bytes of plaintext. */
export declare function encryptedFileSize(plainSize: number): number;
/** The plaintext's size in an encrypted file of `encryptedSize` bytes; RangeError when impossible. */
export declare function plainFileSize(encryptedSize: number): number;
/**
 * The key material of a paste's files: the link key's 32 bytes, or with a password the envelope's
 * PBKDF2 bits (`salt`: the envelope's salt). DecryptError for a malformed key.
 */
export declare function fileKeyMaterial(
  key: string,
  options?: { password?: string | null; salt?: Uint8Array | string | null },
): Promise<Uint8Array<ArrayBuffer>>;
/** The 12-byte nonce of chunk `index`. */
export declare function chunkNonce(index: number, last: boolean): Uint8Array<ArrayBuffer>;
/** Plaintext bytes in, the encrypted file out. `salt` only for test vectors. */
export declare function encryptFileStream(
  keyMaterial: Uint8Array,
  options?: { salt?: Uint8Array },
): TransformStream<Uint8Array | ArrayBufferView | ArrayBuffer, Uint8Array>;
/** The encrypted file in, plaintext bytes out; errors with DecryptError on a wrong key or any damage. */
export declare function decryptFileStream(
  keyMaterial: Uint8Array,
): TransformStream<Uint8Array | ArrayBufferView | ArrayBuffer, Uint8Array>;
