-- Stateless instances on a database server: uploaded logos and favicons, and the session secret
-- the service generates, live in the database instead of the data folder (decisions, wave 3,
-- "beyond one machine"). The embedded database keeps uploads as files; the secrets table is
-- simply unused there.
CREATE TABLE "paste_uploads" (
	"name" text PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"data" bytea NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "paste_generated_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
