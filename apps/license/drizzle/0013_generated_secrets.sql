-- Stateless instances on a database server: the session secret the service generates lives in
-- the database instead of the data folder (decisions, wave 3, "beyond one machine").
CREATE TABLE "license_generated_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
