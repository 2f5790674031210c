import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import type { Queryable } from '@app/db';
import type { Logger } from '@app/http';
import type { SecretBox } from '../two-factor/two-factor.crypto.js';
import {
  findClearKeys,
  findCurrentKid,
  insertFirstKey,
  listSigningKeys,
  sealClearKey,
  type NewSigningKey,
  type SigningKeyRow,
} from './signing-keys.repository.js';

/** A key as GET /api/license/public-key lists it. */
export interface PublicSigningKey {
  kid: string;
  publicKey: string;
  createdAt: string;
  retiredAt: string | null;
}

/**
 * Signs with the current key. Its fields read the current key at the moment they are read: a
 * rotation swaps the key between two requests, never between two synchronous reads, so
 * `sign(...)` and `keyId` read one after the other name the same key.
 */
export interface ResponseSigner {
  /** Base64 Ed25519 signature of exactly these bytes. */
  sign(body: Buffer): string;
  readonly publicKeyPem: string;
  /** The 32-byte raw public key, base64. */
  readonly publicKeyBase64: string;
  /** The kid: first 16 hex digits of the SHA-256 of the raw public key. */
  readonly keyId: string;
  /** Every key, newest first: the current one and the retired ones clients may still meet. */
  keys(): PublicSigningKey[];
}

export interface SigningKeyring {
  signer: ResponseSigner;
  /** Reads the keys again now (after this instance rotated). */
  reload(): Promise<void>;
  /** Stops watching for other instances' rotations. */
  close(): Promise<void>;
}

/** The kid of a public key: what a client computes from the key it holds. */
export function kidOf(publicKey: KeyObject): string {
  return createHash('sha256').update(rawPublicKey(publicKey)).digest('hex').slice(0, 16);
}

/** A fresh Ed25519 key pair, its private key sealed; nothing of it in clear leaves this function. */
export function newSealedKey(box: SecretBox): NewSigningKey {
  const pair = generateKeyPairSync('ed25519');
  return {
    kid: kidOf(pair.publicKey),
    publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    privateKeySealed: box.seal(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
  };
}

/**
 * The service's signing keys, kept in the database so every instance (and every restart) signs
 * with the same current key. At start-up, right after migrations: seals a key still stored in
 * clear (an install from before 0019), makes the first key on a new install, and opens the
 * current one. Then it reads the current kid every `refreshMs` (one tiny indexed read, not one per
 * answer) and takes up a rotation made by another instance within that time.
 *
 * A current key this instance cannot open (SESSION_SECRET differs from the one that sealed it)
 * stops the start: generating a new key here would leave every other instance unable to sign.
 */
export async function loadSigningKeys(deps: {
  db: Queryable;
  box: SecretBox;
  now: () => Date;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  refreshMs?: number;
}): Promise<SigningKeyring> {
  const { db, box, logger } = deps;
  const refreshMs = deps.refreshMs ?? 1000;

  for (const clear of await findClearKeys(db)) {
    createPrivateKey(clear.private_key_pem); // a row that holds no key is not sealed as one
    if (await sealClearKey(db, clear.id, clear.private_key_pem, box.seal(clear.private_key_pem)))
      logger.info('sealed the stored signing key (it was kept in clear before this version)');
  }
  if ((await findCurrentKid(db)) === undefined) await insertFirstKey(db, newSealedKey(box), deps.now());

  let state = await readKeys(db, box);
  const reload = async () => {
    state = await readKeys(db, box);
  };

  let stopped = false;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let warned = false;
  const poll = async () => {
    try {
      const kid = await findCurrentKid(db);
      if (kid !== undefined && kid !== state.current.kid) await reload();
      warned = false;
    } catch (error) {
      // The database is briefly unreachable, or the new key cannot be opened here: keep signing
      // with the key in hand (clients still hold its public key) and try again next time.
      if (!warned)
        logger.warn({ err: error }, 'the current signing key could not be read; signing with the previous one');
      warned = true;
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = poll().finally(schedule);
    }, refreshMs);
    timer.unref();
  };
  schedule();

  const signer: ResponseSigner = {
    sign: (body) => state.current.sign(body).toString('base64'),
    get publicKeyPem() {
      return state.current.publicKeyPem;
    },
    get publicKeyBase64() {
      return state.current.publicKeyBase64;
    },
    get keyId() {
      return state.current.kid;
    },
    keys: () => state.keys,
  };
  return {
    signer,
    reload,
    async close() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}

interface OpenedKey {
  kid: string;
  publicKeyPem: string;
  publicKeyBase64: string;
  sign: (body: Buffer) => Buffer;
}

async function readKeys(db: Queryable, box: SecretBox): Promise<{ current: OpenedKey; keys: PublicSigningKey[] }> {
  const rows = await listSigningKeys(db);
  const row = rows.find((key) => key.retired_at === null);
  if (!row) throw new Error('No current signing key is stored');
  return { current: await openKey(row, box), keys: rows.map(publicKeyOf) };
}

const publicKeyOf = (row: SigningKeyRow): PublicSigningKey => ({
  kid: row.kid,
  publicKey: row.public_key_pem,
  createdAt: row.created_at.toISOString(),
  retiredAt: row.retired_at?.toISOString() ?? null,
});

async function openKey(row: SigningKeyRow, box: SecretBox): Promise<OpenedKey> {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(box.open(row.private_key_sealed ?? ''));
  } catch {
    // The cause says nothing useful and must not carry key material into a log.
    throw new Error(
      `The signing key ${row.kid} cannot be opened: SESSION_SECRET is not the one it was sealed with. Start with that SESSION_SECRET.`,
    );
  }
  const publicKey = createPublicKey(row.public_key_pem);
  if (kidOf(createPublicKey(privateKey)) !== row.kid || kidOf(publicKey) !== row.kid)
    throw new Error(`The signing key ${row.kid} does not match its public key`);
  return {
    kid: row.kid,
    publicKeyPem: row.public_key_pem,
    publicKeyBase64: rawPublicKey(publicKey).toString('base64'),
    sign: await ed25519Signer(privateKey),
  };
}

/**
 * Every validation answer is signed, so the signature is a large share of a validation's CPU.
 * libsodium (sodium-native's prebuilt addon) signs in about half the time of node:crypto's
 * OpenSSL and gives the same bytes: Ed25519 signatures are deterministic.
 * Where the addon does not load (a platform without a prebuild), node:crypto signs.
 */
export async function ed25519Signer(privateKey: KeyObject): Promise<(body: Buffer) => Buffer> {
  const sodium = await import('sodium-native').then(
    (module) => module.default,
    () => undefined,
  );
  if (!sodium) return (body) => sign(null, body, privateKey);
  const secretKey = sodium.sodium_malloc(64);
  sodium.crypto_sign_seed_keypair(
    Buffer.alloc(32),
    secretKey,
    Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url'),
  );
  return (body) => {
    const signature = Buffer.allocUnsafe(64);
    sodium.crypto_sign_detached(signature, body, secretKey);
    return signature;
  };
}

function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url');
}

/** What a client does: check a response body against the published PEM key. */
export function verifyResponse(publicKeyPem: string, body: Buffer | string, signatureBase64: string): boolean {
  return verify(null, Buffer.from(body), createPublicKey(publicKeyPem), Buffer.from(signatureBase64, 'base64'));
}
