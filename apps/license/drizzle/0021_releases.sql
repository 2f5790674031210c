-- Wave 4, "License service: releases and update feeds": software releases of a product and
-- their artifacts (the bytes are in the object store, STORAGE_URL). Named apart from the
-- customer's release of a device (license_releases).
CREATE TABLE "releases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"product_id" uuid NOT NULL,
	"version" text NOT NULL,
	"channel" text DEFAULT 'stable' NOT NULL,
	"notes" text,
	"entitlements" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"published_at" timestamp with time zone,
	"yanked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "releases_channel_check" CHECK ("releases"."channel" in ('stable', 'rc', 'beta', 'alpha', 'dev')),
	CONSTRAINT "releases_status_check" CHECK ("releases"."status" in ('draft', 'published', 'yanked'))
);
--> statement-breakpoint
CREATE TABLE "release_artifacts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"release_id" uuid NOT NULL,
	"filename" text NOT NULL,
	"platform" text NOT NULL,
	"arch" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"signature" text,
	"storage_key" text NOT NULL,
	"uploaded_at" timestamp with time zone,
	"downloads" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "release_artifacts" ADD CONSTRAINT "release_artifacts_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "releases_product_version_idx" ON "releases" USING btree ("product_id","version");
--> statement-breakpoint
CREATE UNIQUE INDEX "release_artifacts_filename_idx" ON "release_artifacts" USING btree ("release_id","filename");
