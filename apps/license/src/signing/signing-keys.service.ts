import type pg from 'pg';
import { withTransaction } from '@app/db';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import type { SecretBox } from '../two-factor/two-factor.crypto.js';
import { listSigningKeys, rotateSigningKey } from './signing-keys.repository.js';
import { newSealedKey, type PublicSigningKey, type SigningKeyring } from './signing.js';

/** The audit log's name for the signing keys (resource type `system`, as the specification lists its types). */
export const signingKeysAuditId = 'signing-keys';

/**
 * The signing keys an admin sees and rotates. A rotation makes a new current key and retires the
 * previous one (its public key stays listed, so clients verify what it signed); this instance
 * signs with the new key at once, the others within their refresh interval.
 */
export function createSigningKeysService(deps: {
  pool: pg.Pool;
  now: () => Date;
  box: SecretBox;
  keyring: SigningKeyring;
}) {
  const { pool, keyring } = deps;
  return {
    /** Every key, newest first, as the database holds them now (another instance may have rotated). */
    async list(): Promise<PublicSigningKey[]> {
      return (await listSigningKeys(pool)).map((row) => ({
        kid: row.kid,
        publicKey: row.public_key_pem,
        createdAt: row.created_at.toISOString(),
        retiredAt: row.retired_at?.toISOString() ?? null,
      }));
    },

    async rotate(actor: Actor): Promise<{ kid: string; publicKey: string; createdAt: string }> {
      const key = newSealedKey(deps.box);
      const { created } = await withTransaction(pool, async (client) => {
        const rotated = await rotateSigningKey(client, key, deps.now());
        await recordAudit(client, actor, {
          action: 'create',
          resourceType: 'system',
          resourceId: signingKeysAuditId,
          before: { currentKid: rotated.retired ?? null },
          after: { currentKid: rotated.created.kid, retiredKid: rotated.retired ?? null },
        });
        return rotated;
      });
      await keyring.reload();
      return { kid: created.kid, publicKey: created.public_key_pem, createdAt: created.created_at.toISOString() };
    },
  };
}

export type SigningKeysService = ReturnType<typeof createSigningKeysService>;
