-- The hash (SHA-256, hex) of each paste's delete token. Pastes made before this column existed keep
-- NULL: no token matches it, so only the owner can delete them.
ALTER TABLE "pastes" ADD COLUMN "delete_token_hash" text;
