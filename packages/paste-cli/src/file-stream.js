// The format of an end-to-end encrypted file (an attachment of an encrypted paste), version 1,
// shared like envelope.js by the paste page (browsers) and the `paste` command line (Node):
// plain JavaScript, WebCrypto and web streams only; its types are in file-stream.d.ts.
//
// The STREAM construction (Hoang, Reyhanitabar, Rogaway, Vizár), as age and Tink use it, so a
// reader decrypts as it downloads and holds at most two chunks:
// - Header (20 bytes): the ASCII magic `PSF1` (the `1` is the version), then a random 16-byte salt.
// - File key: HKDF-SHA-256 over the paste's key material (below), salt = the header's salt,
//   info `paste-file-v1`, 32 bytes: an AES-256-GCM key of this file alone.
// - Key material: the 32 bytes of the link's key; for a paste with a password, the 32 bytes of
//   PBKDF2-SHA-256 over the key's bytes followed by the password's UTF-8 bytes, with the
//   envelope's salt and 600,000 iterations, i.e. exactly the envelope's AES key (envelope.js).
// - Body: the plaintext in chunks of 64 KiB, the last one 0 to 64 KiB long (0 only when the
//   file is empty), each sealed with AES-256-GCM (16-byte tag, no extra data) under the nonce
//   = the chunk's index as 11 bytes big-endian, then 0x01 for the last chunk and 0x00 before.
// Every chunk's nonce says where it stands and whether it ends the file, so a reordered,
// truncated (even at a chunk boundary) or extended file fails to decrypt: DecryptError.

import { DecryptError, fromBase64Url, KEY_BYTES, PBKDF2_ITERATIONS } from './envelope.js';

export const FILE_FORMAT_VERSION = 1;
export const FILE_MAGIC = 'PSF1';
export const FILE_SALT_BYTES = 16;
export const FILE_HEADER_BYTES = FILE_MAGIC.length + FILE_SALT_BYTES;
export const FILE_CHUNK_BYTES = 65536;
export const FILE_TAG_BYTES = 16;
export const FILE_KEY_INFO = 'paste-file-v1';

const SEALED_CHUNK_BYTES = FILE_CHUNK_BYTES + FILE_TAG_BYTES;

const subtle = () => {
  const found = globalThis.crypto && globalThis.crypto.subtle;
  if (!found) throw new Error('WebCrypto is not available here (browsers offer it only on https or localhost)');
  return found;
};

/** The size of the encrypted file for `plainSize` bytes of plaintext (what an upload declares). */
export function encryptedFileSize(plainSize) {
  if (!Number.isSafeInteger(plainSize) || plainSize < 0) throw new RangeError('Invalid size');
  const chunks = Math.max(1, Math.ceil(plainSize / FILE_CHUNK_BYTES));
  return FILE_HEADER_BYTES + plainSize + chunks * FILE_TAG_BYTES;
}

/** The plaintext's size in an encrypted file of `encryptedSize` bytes; RangeError when no file has that size. */
export function plainFileSize(encryptedSize) {
  const body = encryptedSize - FILE_HEADER_BYTES;
  if (!Number.isSafeInteger(encryptedSize) || body < FILE_TAG_BYTES) throw new RangeError('Invalid size');
  const chunks = Math.ceil(body / SEALED_CHUNK_BYTES);
  const plainSize = body - chunks * FILE_TAG_BYTES;
  if (encryptedFileSize(plainSize) !== encryptedSize) throw new RangeError('Invalid size');
  return plainSize;
}

/**
 * The key material of a paste's files: the link key's 32 bytes, or with a password the
 * envelope's PBKDF2 key bits (`salt`: the envelope's salt, as bytes or base64url). Work it out
 * once per paste: PBKDF2 is slow on purpose. DecryptError for a malformed key.
 */
export async function fileKeyMaterial(key, options = {}) {
  let rawKey;
  try {
    rawKey = fromBase64Url(key);
  } catch {
    throw new DecryptError();
  }
  if (rawKey.length !== KEY_BYTES) throw new DecryptError();
  const password = options.password || undefined;
  if (password === undefined) return rawKey;
  if (options.salt === undefined || options.salt === null) throw new TypeError('A password needs the envelope salt');
  const salt = typeof options.salt === 'string' ? fromBase64Url(options.salt) : options.salt;
  const secret = new Uint8Array([...rawKey, ...new TextEncoder().encode(password)]);
  const material = await subtle().importKey('raw', secret, 'PBKDF2', false, ['deriveBits']);
  const bits = await subtle().deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: PBKDF2_ITERATIONS },
    material,
    256,
  );
  return new Uint8Array(bits);
}

async function fileKey(keyMaterial, salt) {
  const material = await subtle().importKey('raw', keyMaterial, 'HKDF', false, ['deriveKey']);
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt, info: new TextEncoder().encode(FILE_KEY_INFO) },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/** The nonce of chunk `index`: 11 bytes of the index (big-endian), then the last-chunk flag. */
export function chunkNonce(index, last) {
  const nonce = new Uint8Array(12);
  let rest = index;
  for (let position = 10; position >= 0 && rest > 0; position -= 1) {
    nonce[position] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/** Bytes received in pieces of any size, taken out again in pieces of the size wanted. */
class ByteQueue {
  constructor() {
    this.pieces = [];
    // The index of the first piece still held: shift() would cost a copy of the list per piece.
    this.first = 0;
    this.length = 0;
  }

  push(bytes) {
    if (bytes.length === 0) return;
    this.pieces.push(bytes);
    this.length += bytes.length;
  }

  take(count) {
    const taken = new Uint8Array(count);
    let filled = 0;
    while (filled < count) {
      const piece = this.pieces[this.first];
      const used = Math.min(piece.length, count - filled);
      taken.set(piece.subarray(0, used), filled);
      filled += used;
      if (used === piece.length) this.first += 1;
      else this.pieces[this.first] = piece.subarray(used);
    }
    if (this.first > 0) {
      this.pieces = this.pieces.slice(this.first);
      this.first = 0;
    }
    this.length -= count;
    return taken;
  }
}

function asBytes(chunk) {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new TypeError('Expected bytes');
}

/**
 * Encrypts a stream of plaintext bytes into the format above. `options.salt` is for test
 * vectors only: leave it out and a fresh random one is drawn.
 */
export function encryptFileStream(keyMaterial, options = {}) {
  const salt = options.salt || globalThis.crypto.getRandomValues(new Uint8Array(FILE_SALT_BYTES));
  const queue = new ByteQueue();
  let key;
  let index = 0;
  const seal = async (plaintext, last) => {
    const iv = chunkNonce(index, last);
    index += 1;
    return new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv }, key, plaintext));
  };
  return new TransformStream({
    async start(controller) {
      key = await fileKey(keyMaterial, salt);
      const header = new Uint8Array(FILE_HEADER_BYTES);
      header.set(new TextEncoder().encode(FILE_MAGIC));
      header.set(salt, FILE_MAGIC.length);
      controller.enqueue(header);
    },
    async transform(chunk, controller) {
      queue.push(asBytes(chunk));
      // A full chunk goes out only once a byte after it is known: the last chunk carries the flag.
      while (queue.length > FILE_CHUNK_BYTES) controller.enqueue(await seal(queue.take(FILE_CHUNK_BYTES), false));
    },
    async flush(controller) {
      controller.enqueue(await seal(queue.take(queue.length), true));
    },
  });
}

/** Decrypts a stream in the format above; the stream fails with DecryptError at the first sign of damage. */
export function decryptFileStream(keyMaterial) {
  const queue = new ByteQueue();
  let key;
  let index = 0;
  const open = async (sealed, last) => {
    const iv = chunkNonce(index, last);
    index += 1;
    try {
      return new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv }, key, sealed));
    } catch {
      throw new DecryptError();
    }
  };
  return new TransformStream({
    async transform(chunk, controller) {
      queue.push(asBytes(chunk));
      if (key === undefined) {
        if (queue.length < FILE_HEADER_BYTES) return;
        const header = queue.take(FILE_HEADER_BYTES);
        if (new TextDecoder().decode(header.subarray(0, FILE_MAGIC.length)) !== FILE_MAGIC) throw new DecryptError();
        key = await fileKey(keyMaterial, header.subarray(FILE_MAGIC.length));
      }
      while (queue.length > SEALED_CHUNK_BYTES) controller.enqueue(await open(queue.take(SEALED_CHUNK_BYTES), false));
    },
    async flush(controller) {
      // No header, no last chunk, or an empty last chunk after others (never written): damaged.
      if (key === undefined || queue.length < FILE_TAG_BYTES) throw new DecryptError();
      if (queue.length === FILE_TAG_BYTES && index > 0) throw new DecryptError();
      controller.enqueue(await open(queue.take(queue.length), true));
    },
  });
}
