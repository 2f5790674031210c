-- Sessions and settings in tables of the service's own. Two services sharing one database (a
-- lone DATABASE_URL) used to share "session" and "settings"; each now copies the rows it owns
-- (every session, so nobody is signed out; its settings namespaces 'license' and
-- 'notification-channels') and drops an old table only when no other service still needs it:
-- the paste service has never migrated this database (no "__migrations_paste"), or it has
-- already moved to its own table and copied its rows. Migrations run one at a time (an
-- advisory lock, packages/db/src/migrate.ts), so whichever service migrates second sees the
-- first one's tables and drops the old ones.
CREATE TABLE "license_session" (
	"sid" varchar PRIMARY KEY NOT NULL,
	"sess" json NOT NULL,
	"expire" timestamp (6) NOT NULL
);
--> statement-breakpoint
CREATE INDEX "IDX_license_session_expire" ON "license_session" USING btree ("expire");
--> statement-breakpoint
CREATE TABLE "license_settings" (
	"namespace" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"version" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now()
);
--> statement-breakpoint
DO $$
BEGIN
	IF to_regclass('public.session') IS NOT NULL THEN
		INSERT INTO "license_session" ("sid", "sess", "expire")
			SELECT "sid", "sess", "expire" FROM "session" ON CONFLICT ("sid") DO NOTHING;
		IF to_regclass('public.__migrations_paste') IS NULL OR to_regclass('public.paste_session') IS NOT NULL THEN
			DROP TABLE "session";
		END IF;
	END IF;
	IF to_regclass('public.settings') IS NOT NULL THEN
		INSERT INTO "license_settings" ("namespace", "value", "version", "updated_at")
			SELECT "namespace", "value", "version", "updated_at" FROM "settings" WHERE "namespace" IN ('license', 'notification-channels')
			ON CONFLICT ("namespace") DO NOTHING;
		IF to_regclass('public.__migrations_paste') IS NULL OR to_regclass('public.paste_settings') IS NOT NULL THEN
			DROP TABLE "settings";
		END IF;
	END IF;
END $$;
