DROP INDEX "licenses_product_idx";--> statement-breakpoint
DROP INDEX "licenses_customer_idx";--> statement-breakpoint
CREATE INDEX "licenses_product_idx" ON "licenses" USING btree ("product_id","key");--> statement-breakpoint
CREATE INDEX "licenses_customer_idx" ON "licenses" USING btree ("customer_id","key");