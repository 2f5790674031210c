import { createCipheriv, createHash, hkdfSync, pbkdf2Sync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DecryptError, fromBase64Url, newKey, open, seal, toBase64Url } from '../src/envelope.js';
import {
  chunkNonce,
  decryptFileStream,
  encryptedFileSize,
  encryptFileStream,
  FILE_CHUNK_BYTES,
  FILE_HEADER_BYTES,
  FILE_TAG_BYTES,
  fileKeyMaterial,
  plainFileSize,
} from '../src/file-stream.js';
import { fileVectors, type FileVector } from './file-vectors.js';

// The encrypted file format (file-stream.js) and its test vectors (file-vectors.json), which the
// page must match in chromium too (file-stream-browser.test.ts).
const vectors = fileVectors();

/** The vectors' plaintext: byte i is i mod 251 (a period prime to the chunk size). */
function patternBytes(length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let index = 0; index < length; index += 1) bytes[index] = index % 251;
  return bytes;
}

/** Runs bytes, fed in `pieces` of the given sizes, through a TransformStream. */
async function through(
  transform: TransformStream<Uint8Array, Uint8Array>,
  bytes: Uint8Array,
  pieceSize = 10_000,
): Promise<Uint8Array> {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let offset = 0; offset < bytes.length; offset += pieceSize) {
        controller.enqueue(bytes.slice(offset, offset + pieceSize));
      }
      controller.close();
    },
  });
  const pieces: Uint8Array[] = [];
  for await (const piece of input.pipeThrough(transform)) pieces.push(piece);
  return new Uint8Array(Buffer.concat(pieces));
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url');

async function materialOf(vector: FileVector) {
  return fileKeyMaterial(vector.key, { password: vector.password, salt: vector.envelopeSalt });
}

/** The format as file-stream.js's comment documents it, written again with node:crypto. */
function encryptWithNodeCrypto(keyMaterial: Uint8Array, salt: Uint8Array, plaintext: Uint8Array): Buffer {
  const key = Buffer.from(hkdfSync('sha256', keyMaterial, salt, 'paste-file-v1', 32));
  const out = [Buffer.from('PSF1'), Buffer.from(salt)];
  const chunks = Math.max(1, Math.ceil(plaintext.length / 65536));
  for (let index = 0; index < chunks; index += 1) {
    const nonce = Buffer.alloc(12);
    nonce.writeUIntBE(index, 5, 6);
    nonce[11] = index === chunks - 1 ? 1 : 0;
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    out.push(
      cipher.update(plaintext.subarray(index * 65536, (index + 1) * 65536)),
      cipher.final(),
      cipher.getAuthTag(),
    );
  }
  return Buffer.concat(out);
}

async function expectDamaged(material: Uint8Array, bytes: Uint8Array, pieceSize?: number) {
  await expect(through(decryptFileStream(material), bytes, pieceSize)).rejects.toBeInstanceOf(DecryptError);
}

describe('the encrypted file format, version 1', () => {
  it.each(vectors)('$name: encrypts to the vector and decrypts it again', async (vector) => {
    const material = await materialOf(vector);
    const plaintext = patternBytes(vector.plaintextLength);
    const sealed = await through(encryptFileStream(material, { salt: fromBase64Url(vector.fileSalt) }), plaintext);
    expect(sealed.length).toBe(vector.ciphertextLength);
    expect(sealed.length).toBe(encryptedFileSize(vector.plaintextLength));
    expect(plainFileSize(sealed.length)).toBe(vector.plaintextLength);
    expect(sha256(sealed)).toBe(vector.ciphertextSha256);
    if (vector.ciphertext) expect(toBase64Url(sealed)).toBe(vector.ciphertext);
    expect(Buffer.from(await through(decryptFileStream(material), sealed, 7777)).equals(plaintext)).toBe(true);
  });

  it.each(vectors)('$name: node:crypto, written apart from WebCrypto, gives the same bytes as documented', (vector) => {
    const key = Buffer.from(vector.key, 'base64url');
    const material =
      vector.password === null
        ? key
        : pbkdf2Sync(
            Buffer.concat([key, Buffer.from(vector.password, 'utf8')]),
            Buffer.from(vector.envelopeSalt!, 'base64url'),
            600_000,
            32,
            'sha256',
          );
    const sealed = encryptWithNodeCrypto(
      material,
      fromBase64Url(vector.fileSalt),
      patternBytes(vector.plaintextLength),
    );
    expect(sha256(sealed)).toBe(vector.ciphertextSha256);
  });

  it("derives a password paste's file key material as the envelope's own AES key", async () => {
    const key = newKey();
    const envelope = await seal({ content: 'with files' }, key, { password: 'hunter2' });
    const material = await fileKeyMaterial(key, { password: 'hunter2', salt: envelope.salt });
    const aes = await crypto.subtle.importKey('raw', material, 'AES-GCM', false, ['decrypt']);
    const plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: new Uint8Array(fromBase64Url(envelope.iv)) },
      aes,
      new Uint8Array(fromBase64Url(envelope.ciphertext)),
    );
    expect(JSON.parse(new TextDecoder().decode(plaintext))).toMatchObject({ content: 'with files' });
    expect((await open(envelope, key, 'hunter2')).content).toBe('with files');
    await expect(fileKeyMaterial('short')).rejects.toBeInstanceOf(DecryptError);
  });

  it('round-trips any size, fed in pieces of any size, with a fresh salt each time', async () => {
    const material = await fileKeyMaterial(newKey());
    for (const [size, pieceSize] of [
      [0, 1],
      [1, 1],
      [65_535, 4096],
      [65_536, 65_536],
      [65_537, 333],
      [200_000, 99_999],
      [3 * 65_536, 3 * 65_536 + 5],
    ] as const) {
      const plaintext = new Uint8Array(randomBytes(size));
      const sealed = await through(encryptFileStream(material), plaintext, pieceSize);
      expect(sealed.length).toBe(encryptedFileSize(size));
      const again = await through(encryptFileStream(material), plaintext, pieceSize);
      expect(Buffer.from(again).equals(Buffer.from(sealed))).toBe(false);
      // Web streams cost tens of microseconds a piece in Node: pieces of a few bytes only for small files.
      const opened = await through(decryptFileStream(material), sealed, Math.max(1, pieceSize - 3));
      expect(Buffer.from(opened).equals(Buffer.from(plaintext)), `size ${size}`).toBe(true);
    }
  });

  it('gives each chunk out as soon as the next bytes show it is not the last', async () => {
    const material = await fileKeyMaterial(newKey());
    const sealed = await through(encryptFileStream(material), patternBytes(3 * 65_536));
    const decrypting = decryptFileStream(material);
    const writer = decrypting.writable.getWriter();
    const reader = decrypting.readable.getReader();
    const firstTwoChunks = FILE_HEADER_BYTES + 2 * (FILE_CHUNK_BYTES + FILE_TAG_BYTES);
    void writer.write(sealed.slice(0, firstTwoChunks));
    const first = await reader.read();
    expect(first.value?.length).toBe(FILE_CHUNK_BYTES);
    void writer.write(sealed.slice(firstTwoChunks));
    void writer.close();
    let rest = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += next.value.length;
    expect(rest).toBe(2 * FILE_CHUNK_BYTES);
  });

  describe('refuses a damaged file with DecryptError', () => {
    const sealedChunk = FILE_CHUNK_BYTES + FILE_TAG_BYTES;
    let material: Uint8Array;
    let sealed: Uint8Array;
    const prepare = async (plainSize = 2 * 65_536 + 500) => {
      material = await fileKeyMaterial(newKey());
      sealed = await through(encryptFileStream(material), patternBytes(plainSize));
    };

    it('a wrong key', async () => {
      await prepare();
      await expectDamaged(await fileKeyMaterial(newKey()), sealed);
    });

    it('truncated: at a chunk boundary, inside a chunk, in the header, or empty', async () => {
      await prepare(3 * 65_536);
      await expectDamaged(material, sealed.slice(0, FILE_HEADER_BYTES + 2 * sealedChunk));
      await expectDamaged(material, sealed.slice(0, FILE_HEADER_BYTES + sealedChunk));
      await expectDamaged(material, sealed.slice(0, sealed.length - 1));
      await expectDamaged(material, sealed.slice(0, FILE_HEADER_BYTES + 10));
      await expectDamaged(material, sealed.slice(0, FILE_HEADER_BYTES));
      await expectDamaged(material, sealed.slice(0, 10));
      await expectDamaged(material, new Uint8Array(0));
    });

    it('reordered chunks', async () => {
      await prepare();
      const header = sealed.slice(0, FILE_HEADER_BYTES);
      const first = sealed.slice(FILE_HEADER_BYTES, FILE_HEADER_BYTES + sealedChunk);
      const second = sealed.slice(FILE_HEADER_BYTES + sealedChunk, FILE_HEADER_BYTES + 2 * sealedChunk);
      const last = sealed.slice(FILE_HEADER_BYTES + 2 * sealedChunk);
      await expectDamaged(material, Buffer.concat([header, second, first, last]));
      await expectDamaged(material, Buffer.concat([header, first, first, last]));
    });

    it('a flipped byte in the magic, the salt, a chunk or a tag', async () => {
      await prepare();
      for (const position of [0, 3, 4, 19, FILE_HEADER_BYTES, FILE_HEADER_BYTES + sealedChunk - 1, sealed.length - 1]) {
        const flipped = sealed.slice();
        flipped[position]! ^= 0x01;
        await expectDamaged(material, flipped);
      }
    });

    it('anything after the last chunk: a chunk sealed in place, a copy of the last, one byte', async () => {
      await prepare(65_536);
      const aes = await crypto.subtle.importKey(
        'raw',
        hkdfSync('sha256', material, sealed.slice(4, FILE_HEADER_BYTES), 'paste-file-v1', 32),
        'AES-GCM',
        false,
        ['encrypt'],
      );
      for (const last of [true, false]) {
        const extra = new Uint8Array(
          await crypto.subtle.encrypt({ name: 'AES-GCM', iv: chunkNonce(1, last) }, aes, new Uint8Array(10)),
        );
        await expectDamaged(material, Buffer.concat([sealed, extra]));
      }
      await expectDamaged(material, Buffer.concat([sealed, sealed.slice(FILE_HEADER_BYTES)]));
      await expectDamaged(material, Buffer.concat([sealed, new Uint8Array(1)]));
      // A full chunk followed by an empty last one is never written (the full one is the last):
      // refused too, so that every plaintext has one encryption.
      const seal = async (index: number, last: boolean, plaintext: Uint8Array<ArrayBuffer>) =>
        new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: chunkNonce(index, last) }, aes, plaintext));
      await expectDamaged(
        material,
        Buffer.concat([
          sealed.slice(0, FILE_HEADER_BYTES),
          await seal(0, false, patternBytes(65_536)),
          await seal(1, true, new Uint8Array(0)),
        ]),
      );
      // The same file with its chunks sealed as written opens: the forgery above fails for its empty chunk alone.
      const opened = await through(
        decryptFileStream(material),
        Buffer.concat([
          sealed.slice(0, FILE_HEADER_BYTES),
          await seal(0, false, patternBytes(65_536)),
          await seal(1, true, new Uint8Array(1)),
        ]),
      );
      expect(opened.length).toBe(65_537);
    });
  });

  it('knows which sizes an encrypted file can have', () => {
    expect(encryptedFileSize(0)).toBe(36);
    expect(encryptedFileSize(65_536)).toBe(20 + 65_536 + 16);
    expect(encryptedFileSize(65_537)).toBe(20 + 65_537 + 32);
    expect(encryptedFileSize(1024 ** 3)).toBe(20 + 1024 ** 3 + 16 * 16_384);
    for (const size of [0, 1, 65_535, 65_536, 65_537, 1024 ** 3, 5 * 1024 ** 3]) {
      expect(plainFileSize(encryptedFileSize(size))).toBe(size);
    }
    for (const impossible of [0, 35, 20 + 65_536 + 17]) expect(() => plainFileSize(impossible)).toThrow(RangeError);
    expect(() => encryptedFileSize(-1)).toThrow(RangeError);
  });
});
