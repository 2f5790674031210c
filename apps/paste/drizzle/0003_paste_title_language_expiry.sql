ALTER TABLE "pastes" ADD COLUMN "title" text;--> statement-breakpoint
ALTER TABLE "pastes" ADD COLUMN "language" text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE "pastes" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "pastes" ADD COLUMN "reveal_on_click" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "pastes" ADD COLUMN "preview_fetches" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "pastes_expires_at_idx" ON "pastes" USING btree ("expires_at") WHERE "pastes"."expires_at" is not null;