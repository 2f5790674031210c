-- Wave 4, "Signing keys are sealed and rotate". Every key gets its `kid` (the first 16 hex digits
-- of the SHA-256 of the raw 32-byte Ed25519 public key: the last 32 bytes of its SPKI DER), a
-- `retired_at`, and a sealed private key. The one key with no `retired_at` is the current key,
-- one per algorithm (a unique partial index, so two rotations at once cannot leave two).
-- The existing row stays and becomes the current key, under the kid clients already know.
--
-- Its private key cannot be sealed here: the sealing key is derived from SESSION_SECRET, which
-- SQL does not have. The service seals it at start-up right after migrations (a conditional
-- UPDATE, so instances starting together seal it once) and clears `private_key_pem`; until then
-- the column is nullable. A retired key keeps only its public key: it never signs again.
ALTER TABLE "signing_keys" ADD COLUMN "kid" text;
--> statement-breakpoint
UPDATE "signing_keys" SET "kid" = left(encode(sha256(substring(decode(regexp_replace("public_key_pem", '-----[A-Z ]+-----|\s', '', 'g'), 'base64') from 13)), 'hex'), 16);
--> statement-breakpoint
ALTER TABLE "signing_keys" ALTER COLUMN "kid" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_kid_unique" UNIQUE ("kid");
--> statement-breakpoint
ALTER TABLE "signing_keys" ADD COLUMN "retired_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "signing_keys" ADD COLUMN "private_key_sealed" text;
--> statement-breakpoint
ALTER TABLE "signing_keys" ALTER COLUMN "private_key_pem" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_private_key_check" CHECK (("signing_keys"."private_key_pem" IS NULL OR "signing_keys"."private_key_sealed" IS NULL) AND ("signing_keys"."retired_at" IS NOT NULL OR "signing_keys"."private_key_pem" IS NOT NULL OR "signing_keys"."private_key_sealed" IS NOT NULL));
--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_one_current" ON "signing_keys" USING btree ("algorithm") WHERE "signing_keys"."retired_at" IS NULL;
