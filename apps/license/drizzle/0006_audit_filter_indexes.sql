-- The admin console's audit log page filters by action, by resource type and by success, each
-- newest first. With only the created_at index, a filter on a rare value (a revocation, a
-- failed write) walks the whole log backwards to fill one page; these serve each filter as an
-- index range read in the page's order (created_at DESC, id DESC). The admin filter already has
-- audit_logs_user_idx (user_id, created_at) and the date range audit_logs_created_idx.
CREATE INDEX IF NOT EXISTS "audit_logs_action_created_idx" ON "audit_logs" USING btree ("action","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_logs_type_created_idx" ON "audit_logs" USING btree ("resource_type","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_logs_failed_created_idx" ON "audit_logs" USING btree ("created_at","id") WHERE NOT "success";
