CREATE TABLE "paste_password_attempts" (
	"paste_id" bigint PRIMARY KEY NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL,
	"failures" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "paste_password_attempts" ADD CONSTRAINT "paste_password_attempts_paste_id_pastes_id_fk" FOREIGN KEY ("paste_id") REFERENCES "public"."pastes"("id") ON DELETE cascade ON UPDATE no action;