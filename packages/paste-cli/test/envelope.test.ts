import { createDecipheriv, createHash, hkdfSync, pbkdf2Sync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DecryptError,
  fromBase64Url,
  keyCheck,
  keyHash,
  keyHashOfCheck,
  newKey,
  open,
  PBKDF2_ITERATIONS,
  seal,
  type Envelope,
  type Payload,
} from '../src/envelope.js';

// The format's test vectors (vectors.json), which the paste page must match in chromium as well
// (apps/paste/test/encrypted-browser.test.ts): one file proves both sides.
interface Vector {
  name: string;
  key: string;
  password: string | null;
  iv: string;
  salt: string | null;
  payload: Payload;
  /** The verifier a reader sends as X-Paste-Key-Check. */
  keyCheck: string;
  envelope: Envelope;
}
const { vectors } = JSON.parse(readFileSync(path.join(import.meta.dirname, 'vectors.json'), 'utf8')) as {
  vectors: Vector[];
};

describe('the encrypted paste format, version 1', () => {
  it.each(vectors)('$name: seals to the vector and opens it again', async (vector) => {
    const password = vector.password ?? undefined;
    const sealed = await seal(vector.payload, vector.key, {
      password,
      iv: fromBase64Url(vector.iv),
      salt: vector.salt ? fromBase64Url(vector.salt) : undefined,
    });
    expect(sealed).toEqual(vector.envelope);
    expect(await open(vector.envelope, vector.key, password)).toEqual({
      title: null,
      language: null,
      ...vector.payload,
    });
  });

  it.each(vectors)('$name: node:crypto, written apart from WebCrypto, reads the vector as documented', (vector) => {
    const key = Buffer.from(vector.key, 'base64url');
    const aesKey =
      vector.password === null
        ? key
        : pbkdf2Sync(
            Buffer.concat([key, Buffer.from(vector.password, 'utf8')]),
            Buffer.from(vector.salt!, 'base64url'),
            600_000,
            32,
            'sha256',
          );
    const sealed = Buffer.from(vector.envelope.ciphertext, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', aesKey, Buffer.from(vector.iv, 'base64url'));
    decipher.setAuthTag(sealed.subarray(-16));
    const plaintext = Buffer.concat([decipher.update(sealed.subarray(0, -16)), decipher.final()]).toString('utf8');
    expect(JSON.parse(plaintext)).toEqual({ title: null, language: null, ...vector.payload });
    expect(PBKDF2_ITERATIONS).toBeGreaterThanOrEqual(600_000);
  });

  it.each(vectors)("$name: the key check and the key hash are the vector's", async (vector) => {
    expect(await keyCheck(vector.key)).toBe(vector.keyCheck);
    expect(await keyHashOfCheck(vector.keyCheck)).toBe(vector.envelope.keyHash);
    expect(await keyHash(vector.key)).toBe(vector.envelope.keyHash);
    // The verifier is not the key, nor its hash the verifier.
    expect(vector.keyCheck).not.toBe(vector.key);
    expect(vector.envelope.keyHash).not.toBe(vector.keyCheck);
  });

  it.each(vectors)(
    '$name: node:crypto derives the same key check as documented (HKDF-SHA-256, empty salt)',
    (vector) => {
      const verifier = Buffer.from(
        hkdfSync('sha256', Buffer.from(vector.key, 'base64url'), Buffer.alloc(0), 'paste-key-check', 32),
      );
      expect(verifier.toString('base64url')).toBe(vector.keyCheck);
      expect(createHash('sha256').update(verifier).digest('base64url')).toBe(vector.envelope.keyHash);
    },
  );

  it('a malformed key has no key check: "Cannot decrypt: wrong key or damaged paste"', async () => {
    await expect(keyCheck('abc')).rejects.toThrow(DecryptError);
  });

  it('fresh keys are 32 random bytes and every seal draws a new iv', async () => {
    const key = newKey();
    expect(fromBase64Url(key)).toHaveLength(32);
    expect(newKey()).not.toBe(key);
    const [a, b] = await Promise.all([seal({ content: 'same' }, key), seal({ content: 'same' }, key)]);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  const vector = vectors[0]!;
  const flip = (text: string) => `${text.slice(0, 5)}${text[5] === 'A' ? 'B' : 'A'}${text.slice(6)}`;
  it.each([
    { name: 'another key', envelope: vector.envelope, key: newKey() },
    { name: 'a key of the wrong length', envelope: vector.envelope, key: 'abc' },
    {
      name: 'a changed ciphertext',
      envelope: { ...vector.envelope, ciphertext: flip(vector.envelope.ciphertext) },
      key: vector.key,
    },
    { name: 'a changed iv', envelope: { ...vector.envelope, iv: flip(vector.envelope.iv) }, key: vector.key },
    { name: 'an unknown version', envelope: { ...vector.envelope, v: 2 as 1 }, key: vector.key },
    { name: 'a password the paste does not have', envelope: vector.envelope, key: vector.key, password: 'extra' },
  ])('$name: throws "Cannot decrypt: wrong key or damaged paste"', async ({ envelope, key, password }) => {
    const failure = await open(envelope, key, password).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DecryptError);
    expect((failure as Error).message).toBe('Cannot decrypt: wrong key or damaged paste');
  });

  it('a password paste opens with neither the key alone nor a wrong password', async () => {
    const protectedVector = vectors.find((found) => found.password !== null)!;
    await expect(open(protectedVector.envelope, protectedVector.key)).rejects.toThrow(DecryptError);
    await expect(open(protectedVector.envelope, protectedVector.key, 'wrong')).rejects.toThrow(DecryptError);
  });
});
