-- The admin lists show the newest first (ORDER BY created_at DESC, id). Without an index in that
-- order every page sorted the whole table (1,000,000 licenses: a parallel scan and sort for 50
-- rows); with it a page reads its rows in order and stops. A product's licenses (the product
-- filter of the list, the product page) get the same order within the product.
CREATE INDEX "licenses_created_idx" ON "licenses" USING btree ("created_at" DESC, "id");--> statement-breakpoint
CREATE INDEX "licenses_product_created_idx" ON "licenses" USING btree ("product_id", "created_at" DESC, "id");--> statement-breakpoint
CREATE INDEX "customers_created_idx" ON "customers" USING btree ("created_at" DESC, "id");
