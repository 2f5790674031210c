-- The customer portal's release limit (CUSTOMER_RELEASES_PER_DAY in any 24 hours) counts rows of
-- its own instead of audit entries: one row per release, read by an index range per license,
-- counted and written under the license's row lock. The releases of the last 24 hours are carried
-- over from the audit log, so the limit answers the same across the upgrade.
CREATE TABLE "license_releases" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"license_id" uuid NOT NULL,
	"released_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "license_releases" ADD CONSTRAINT "license_releases_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "license_releases_license_released_idx" ON "license_releases" USING btree ("license_id","released_at");
--> statement-breakpoint
INSERT INTO "license_releases" ("license_id", "released_at")
SELECT l.id, a.created_at
  FROM "audit_logs" a JOIN "licenses" l ON l.id::text = a.resource_id
 WHERE a.action = 'release' AND a.resource_type = 'license' AND a.success
   AND a.created_at > now() - interval '24 hours';
