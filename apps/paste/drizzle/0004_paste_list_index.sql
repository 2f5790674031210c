DROP INDEX "pastes_created_at_idx";--> statement-breakpoint
CREATE INDEX "pastes_created_at_id_idx" ON "pastes" USING btree ("created_at","id");