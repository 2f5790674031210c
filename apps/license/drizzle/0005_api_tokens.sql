-- Admins removed in the console are remembered (removed_at), so ADMIN_IDS, which only adds ids
-- it has never seen, does not bring them back at the next start; last_sign_in_at for the list.
ALTER TABLE "admins" ADD COLUMN "removed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "admins" ADD COLUMN "last_sign_in_at" timestamp with time zone;--> statement-breakpoint
-- Bearer tokens (JWT) issued here, by their `jti`: listed in the console and revocable. The admin
-- guard looks a token's jti up by primary key (one indexed lookup per bearer request).
CREATE TABLE "api_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"admin_user_id" text NOT NULL,
	"label" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "api_tokens_created_idx" ON "api_tokens" USING btree ("created_at" DESC NULLS LAST,"id");
