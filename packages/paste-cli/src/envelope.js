// The format of an end-to-end encrypted paste (version 1), shared by the paste page's script
// (served as an ES module at /static/envelope.js) and the `paste` command line. Plain JavaScript
// with WebCrypto only (globalThis.crypto.subtle, TextEncoder, atob/btoa), so browsers and Node
// run this same file; its types are in envelope.d.ts.
//
// - The key is 32 random bytes, written base64url (43 characters) in the link's fragment only.
// - The plaintext is the UTF-8 JSON `{"content":…,"title":…,"language":…}`, and with files
//   (attachments, wave 4) `"files":[{"name":…,"type":…},…]` in the order of the paste's
//   attachments: their names and types travel inside the ciphertext only.
// - AES-256-GCM with a random 12-byte iv and a 16-byte tag (WebCrypto's default), no extra data.
// - With a password, the AES key is PBKDF2-SHA-256 (600,000 iterations, OWASP's figure; fixed by
//   `v: 1`) over the key's 32 bytes followed by the password's UTF-8 bytes, with a random 16-byte
//   salt: the link alone, or the password alone, opens nothing.
// - The envelope the server stores: `{ v: 1, keyHash, iv, ciphertext, salt? }`, every binary value
//   base64url.
// - The key check (wave 4): verifier = HKDF-SHA-256 of the key's 32 bytes (empty salt, info
//   `paste-key-check`, 32 bytes); `keyHash` = SHA-256(verifier). A reader sends the verifier in
//   `X-Paste-Key-Check`, and the server counts a view only when its hash is `keyHash`: so a link
//   whose fragment was lost never spends one. The verifier is not the key (HKDF is one-way), and
//   the key never reaches the server.

export const ENVELOPE_VERSION = 1;
export const PBKDF2_ITERATIONS = 600000;
export const KEY_BYTES = 32;
export const IV_BYTES = 12;
export const SALT_BYTES = 16;
export const DECRYPT_ERROR = 'Cannot decrypt: wrong key or damaged paste';
export const KEY_CHECK_INFO = 'paste-key-check';
/** The request header that carries the verifier. */
export const KEY_CHECK_HEADER = 'X-Paste-Key-Check';

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The one error every failure to open an envelope gives: nothing tells a wrong key from damage. */
export class DecryptError extends Error {
  constructor() {
    super(DECRYPT_ERROR);
    this.name = 'DecryptError';
  }
}

const subtle = () => {
  const found = globalThis.crypto && globalThis.crypto.subtle;
  if (!found) throw new Error('WebCrypto is not available here (browsers offer it only on https or localhost)');
  return found;
};

export function toBase64Url(bytes) {
  let binary = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode.apply(null, Array.from(bytes.subarray(start, start + 0x8000)));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Throws on anything but unpadded base64url. */
export function fromBase64Url(text) {
  if (typeof text !== 'string' || !BASE64URL.test(text) || text.length % 4 === 1) throw new TypeError('not base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** The number of bytes a base64url text (unpadded) stands for. */
export function base64UrlByteLength(text) {
  return Math.floor((text.length * 3) / 4);
}

const randomBytes = (length) => globalThis.crypto.getRandomValues(new Uint8Array(length));

/** A new random key, as it goes in the link's fragment. */
export function newKey() {
  return toBase64Url(randomBytes(KEY_BYTES));
}

function keyBytes(key) {
  let bytes;
  try {
    bytes = fromBase64Url(key);
  } catch {
    throw new DecryptError();
  }
  if (bytes.length !== KEY_BYTES) throw new DecryptError();
  return bytes;
}

/** The verifier of `key` as the reader sends it (base64url of 32 bytes); DecryptError for a malformed key. */
export async function keyCheck(key) {
  const material = await subtle().importKey('raw', keyBytes(key), 'HKDF', false, ['deriveBits']);
  const bits = await subtle().deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new TextEncoder().encode(KEY_CHECK_INFO) },
    material,
    256,
  );
  return toBase64Url(new Uint8Array(bits));
}

/** What the server stores to recognise the verifier: base64url(SHA-256(verifier)). */
export async function keyHashOfCheck(check) {
  return toBase64Url(new Uint8Array(await subtle().digest('SHA-256', fromBase64Url(check))));
}

/** The `keyHash` of `key`. */
export async function keyHash(key) {
  return keyHashOfCheck(await keyCheck(key));
}

async function aesKey(rawKey, password, salt) {
  if (password === undefined || password === null || password === '') {
    return subtle().importKey('raw', rawKey, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
  }
  const secret = new Uint8Array([...rawKey, ...new TextEncoder().encode(password)]);
  const material = await subtle().importKey('raw', secret, 'PBKDF2', false, ['deriveKey']);
  return subtle().deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: PBKDF2_ITERATIONS },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/**
 * Encrypts `{ content, title, language }` under `key` (and `password`, when given). `iv` and
 * `salt` are for test vectors only: leave them out and fresh random ones are drawn.
 */
export async function seal(payload, key, options = {}) {
  const password = options.password || undefined;
  const iv = options.iv || randomBytes(IV_BYTES);
  const salt = password === undefined ? undefined : options.salt || randomBytes(SALT_BYTES);
  const plaintext = new TextEncoder().encode(
    JSON.stringify({
      content: payload.content,
      title: payload.title ?? null,
      language: payload.language ?? null,
      ...(payload.files === undefined ? {} : { files: payload.files.map(fileEntry) }),
    }),
  );
  const cipherKey = await aesKey(keyBytes(key), password, salt);
  const ciphertext = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv }, cipherKey, plaintext));
  const envelope = {
    v: ENVELOPE_VERSION,
    keyHash: await keyHash(key),
    iv: toBase64Url(iv),
    ciphertext: toBase64Url(ciphertext),
  };
  if (salt !== undefined) envelope.salt = toBase64Url(salt);
  return envelope;
}

/** Whether the envelope needs a password besides the key. */
export function needsPassword(envelope) {
  return Boolean(envelope && typeof envelope.salt === 'string');
}

/**
 * Decrypts an envelope: `{ content, title, language }`. Any failure (wrong key or password,
 * damaged or unknown envelope) throws DecryptError.
 */
export async function open(envelope, key, password) {
  const rawKey = keyBytes(key);
  let iv;
  let ciphertext;
  let salt;
  try {
    if (!envelope || envelope.v !== ENVELOPE_VERSION) throw new TypeError('unknown version');
    iv = fromBase64Url(envelope.iv);
    ciphertext = fromBase64Url(envelope.ciphertext);
    salt = envelope.salt === undefined ? undefined : fromBase64Url(envelope.salt);
  } catch {
    throw new DecryptError();
  }
  // A salt means a password went into the key: without one there is nothing to try.
  if ((salt === undefined) !== (password === undefined || password === null || password === ''))
    throw new DecryptError();
  let plaintext;
  try {
    const cipherKey = await aesKey(rawKey, salt === undefined ? undefined : password, salt);
    plaintext = await subtle().decrypt({ name: 'AES-GCM', iv }, cipherKey, ciphertext);
  } catch {
    throw new DecryptError();
  }
  let parsed;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(plaintext));
  } catch {
    throw new DecryptError();
  }
  if (!parsed || typeof parsed.content !== 'string') throw new DecryptError();
  return {
    content: parsed.content,
    title: typeof parsed.title === 'string' ? parsed.title : null,
    language: typeof parsed.language === 'string' ? parsed.language : null,
    ...(Array.isArray(parsed.files) ? { files: parsed.files.map(fileEntry) } : {}),
  };
}

/** A file's name and type as the payload keeps them (a name is always a string). */
function fileEntry(file) {
  const name = file && typeof file.name === 'string' ? file.name : '';
  return file && typeof file.type === 'string' && file.type !== '' ? { name, type: file.type } : { name };
}
