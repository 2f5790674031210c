-- Wave 4, "answers an application can trust": grace after expiry, the expiration strategy and
-- borrowing of floating seats for offline files. A license carries its own values (validation
-- reads them with the row); a policy's are copied onto the licenses made from it, and null there
-- sets nothing, like the policy's other fields. The defaults keep every existing license as it
-- answered before: no grace, `revoke` (the specification's expiry), no borrowing.
ALTER TABLE "licenses" ADD COLUMN "grace_days" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "licenses" ADD COLUMN "expiration_strategy" text DEFAULT 'revoke' NOT NULL;
--> statement-breakpoint
ALTER TABLE "licenses" ADD COLUMN "borrow_hours" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_grace_check" CHECK ("licenses"."grace_days" BETWEEN 0 AND 90);
--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_strategy_check" CHECK ("licenses"."expiration_strategy" in ('revoke', 'maintain'));
--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_borrow_check" CHECK ("licenses"."borrow_hours" BETWEEN 0 AND 720);
--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "grace_days" integer;
--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "expiration_strategy" text;
--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "borrow_hours" integer;
--> statement-breakpoint
ALTER TABLE "policies" ADD CONSTRAINT "policies_grace_check" CHECK ("policies"."grace_days" BETWEEN 0 AND 90);
--> statement-breakpoint
ALTER TABLE "policies" ADD CONSTRAINT "policies_strategy_check" CHECK ("policies"."expiration_strategy" in ('revoke', 'maintain'));
--> statement-breakpoint
ALTER TABLE "policies" ADD CONSTRAINT "policies_borrow_check" CHECK ("policies"."borrow_hours" BETWEEN 0 AND 720);
