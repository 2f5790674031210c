import { parseRow, type Queryable } from '@app/db';
import { z } from 'zod';

const signingKeyPemRow = z.object({ public_key_pem: z.string(), private_key_pem: z.string() });
export type SigningKeyPem = z.infer<typeof signingKeyPemRow>;

/**
 * Stores the key pair under `id` unless one is stored already, and answers the stored one.
 * Concurrent first starts race on the primary key: one insert wins and everyone reads the winner.
 */
export async function ensureSigningKey(
  db: Queryable,
  id: string,
  pair: { publicKeyPem: string; privateKeyPem: string },
): Promise<SigningKeyPem> {
  await db.query(
    `INSERT INTO signing_keys (id, algorithm, public_key_pem, private_key_pem) VALUES ($1, 'Ed25519', $2, $3)
     ON CONFLICT (id) DO NOTHING`,
    [id, pair.publicKeyPem, pair.privateKeyPem],
  );
  const { rows } = await db.query('SELECT public_key_pem, private_key_pem FROM signing_keys WHERE id = $1', [id]);
  return parseRow(signingKeyPemRow, rows);
}
