-- Attachments of pastes (decisions.md wave 4, "Attachments" and "Storage"): the bytes live in the
-- object store under `pastes/<id>`; a row says which paste a file belongs to and how big it is.
-- No foreign key on purpose: a row outlives its paste until the cleanup job has removed its
-- object (after the last download URL handed out lapses), so nothing is left in the store.
CREATE TABLE "paste_attachments" (
	"id" text PRIMARY KEY NOT NULL,
	"paste_id" bigint NOT NULL,
	"position" smallint NOT NULL,
	"size" bigint NOT NULL,
	"name" text,
	"type" text,
	"uploaded" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"urls_until" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "paste_attachments_paste_id_idx" ON "paste_attachments" USING btree ("paste_id");
--> statement-breakpoint
-- How many attachments a completed paste carries (0: none), so a view knows without a lookup
-- whether to hand out download URLs.
ALTER TABLE "pastes" ADD COLUMN "attachments" smallint DEFAULT 0 NOT NULL;
