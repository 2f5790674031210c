-- Wrong paste passwords per client address, beside the per-paste count of 0002: one address is
-- refused after 10 in a 15-minute window, so one person guessing cannot lock out the reader who
-- has the password. One row per (paste, address) that has had a wrong one; deleted with its
-- paste, and by the expiry job once its window is over.
CREATE TABLE "paste_password_attempts_by_address" (
	"paste_id" bigint NOT NULL,
	"address" text NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL,
	"failures" integer NOT NULL,
	CONSTRAINT "paste_password_attempts_by_address_pk" PRIMARY KEY("paste_id","address")
);
--> statement-breakpoint
ALTER TABLE "paste_password_attempts_by_address" ADD CONSTRAINT "paste_password_attempts_by_address_paste_id_pastes_id_fk" FOREIGN KEY ("paste_id") REFERENCES "public"."pastes"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- The expiry job deletes the windows that are over.
CREATE INDEX "paste_password_attempts_by_address_window_idx" ON "paste_password_attempts_by_address" USING btree ("window_started_at");
