CREATE TABLE "automated_action_firings" (
	"action_id" uuid NOT NULL,
	"fire_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "automated_action_firings_action_id_fire_key_pk" PRIMARY KEY("action_id","fire_key")
);
--> statement-breakpoint
CREATE TABLE "automated_action_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"action_id" uuid NOT NULL,
	"trigger_event" text NOT NULL,
	"context" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"success" boolean NOT NULL,
	"results" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automated_actions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"trigger_event" text NOT NULL,
	"trigger" jsonb NOT NULL,
	"actions" jsonb NOT NULL,
	"execution_count" integer DEFAULT 0 NOT NULL,
	"last_executed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "anomaly_reports" (
	"key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "license_notices" (
	"license_id" uuid NOT NULL,
	"notice" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "license_notices_license_id_notice_pk" PRIMARY KEY("license_id","notice")
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"processed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "automated_action_firings" ADD CONSTRAINT "automated_action_firings_action_id_automated_actions_id_fk" FOREIGN KEY ("action_id") REFERENCES "public"."automated_actions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automated_action_runs" ADD CONSTRAINT "automated_action_runs_action_id_automated_actions_id_fk" FOREIGN KEY ("action_id") REFERENCES "public"."automated_actions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_notices" ADD CONSTRAINT "license_notices_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "automated_action_runs_action_idx" ON "automated_action_runs" USING btree ("action_id","created_at");--> statement-breakpoint
CREATE INDEX "automated_actions_trigger_idx" ON "automated_actions" USING btree ("trigger_event","enabled");