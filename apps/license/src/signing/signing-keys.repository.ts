import { parseRow, parseRows, type Queryable } from '@app/db';
import { z } from 'zod';

// The SQL of `signing_keys`. The current key is the one row without `retired_at` (a unique
// partial index keeps it one); private keys are stored sealed, and a retired key has none.

const keyRow = z.object({
  kid: z.string(),
  public_key_pem: z.string(),
  private_key_sealed: z.string().nullable(),
  created_at: z.date(),
  retired_at: z.date().nullable(),
});
export type SigningKeyRow = z.infer<typeof keyRow>;

const legacyRow = z.object({ id: z.string(), private_key_pem: z.string() });
const kidRow = z.object({ kid: z.string() });

export interface NewSigningKey {
  kid: string;
  publicKeyPem: string;
  privateKeySealed: string;
}

/** Keys still stored in clear (an install from before 0019), to be sealed by the caller. */
export async function findClearKeys(db: Queryable): Promise<Array<z.infer<typeof legacyRow>>> {
  const { rows } = await db.query('SELECT id, private_key_pem FROM signing_keys WHERE private_key_pem IS NOT NULL');
  return parseRows(legacyRow, rows);
}

/**
 * Replaces a clear private key by its sealed form, only while the row still holds that clear
 * key: instances starting together each seal it, and exactly one of them writes.
 */
export async function sealClearKey(db: Queryable, id: string, clearPem: string, sealed: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE signing_keys SET private_key_sealed = $3, private_key_pem = NULL
      WHERE id = $1 AND private_key_pem = $2`,
    [id, clearPem, sealed],
  );
  return rowCount === 1;
}

/** The current key's kid; undefined before the first key is made. */
export async function findCurrentKid(db: Queryable): Promise<string | undefined> {
  const { rows } = await db.query(`SELECT kid FROM signing_keys WHERE retired_at IS NULL AND algorithm = 'Ed25519'`);
  return parseRows(kidRow, rows)[0]?.kid;
}

/**
 * Stores `key` as the current key unless there is one: instances starting together on an empty
 * table race on the one-current index, one insert wins, and everyone reads the winner.
 */
export async function insertFirstKey(db: Queryable, key: NewSigningKey, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO signing_keys (id, kid, algorithm, public_key_pem, private_key_sealed, created_at)
     VALUES ($1, $1, 'Ed25519', $2, $3, $4) ON CONFLICT DO NOTHING`,
    [key.kid, key.publicKeyPem, key.privateKeySealed, at],
  );
}

/** Every key, newest first: the current one and the retired ones. */
export async function listSigningKeys(db: Queryable): Promise<SigningKeyRow[]> {
  const { rows } = await db.query(
    `SELECT kid, public_key_pem, private_key_sealed, created_at, retired_at FROM signing_keys
      WHERE algorithm = 'Ed25519' ORDER BY created_at DESC, retired_at DESC NULLS FIRST`,
  );
  return parseRows(keyRow, rows);
}

/**
 * Retires the current key (dropping its private key) and stores `key` as the new current one.
 * Call it inside a transaction. The table lock orders rotations from every instance: the second
 * one waits, then sees the first one's key as current and retires it in turn. `at` is when the
 * caller asked; a rotation that waited behind a later one is stamped no earlier than it, so the
 * newest key is always the current one.
 */
export async function rotateSigningKey(
  client: Queryable,
  key: NewSigningKey,
  at: Date,
): Promise<{ retired: string | undefined; created: SigningKeyRow }> {
  await client.query('LOCK TABLE signing_keys IN SHARE ROW EXCLUSIVE MODE');
  const retired = await client.query(
    `UPDATE signing_keys SET retired_at = GREATEST($1::timestamptz, created_at), private_key_sealed = NULL,
            private_key_pem = NULL
      WHERE retired_at IS NULL AND algorithm = 'Ed25519' RETURNING kid`,
    [at],
  );
  const { rows } = await client.query(
    `INSERT INTO signing_keys (id, kid, algorithm, public_key_pem, private_key_sealed, created_at)
     VALUES ($1, $1, 'Ed25519', $2, $3, GREATEST($4::timestamptz, (SELECT max(created_at) FROM signing_keys)))
     RETURNING kid, public_key_pem, private_key_sealed, created_at, retired_at`,
    [key.kid, key.publicKeyPem, key.privateKeySealed, at],
  );
  return { retired: parseRows(kidRow, retired.rows)[0]?.kid, created: parseRow(keyRow, rows) };
}
