-- Wave 4, "releases and update feeds": the bytes of a deleted artifact leave the object store.
-- Every way an artifact row goes (its release deleted, its product deleted by cascade, the
-- artifact removed from a draft, SQL by hand) queues its object here, in the same transaction,
-- through the trigger below; the distribution feature removes the queued objects right after a
-- deletion and every minute after that (a store that is down is retried), then drops the rows.
CREATE TABLE "release_object_removals" (
	"storage_key" text PRIMARY KEY NOT NULL,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "release_artifacts_storage_key_idx" ON "release_artifacts" USING btree ("storage_key");
--> statement-breakpoint
CREATE FUNCTION release_artifact_queue_removal() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO release_object_removals (storage_key) VALUES (OLD.storage_key) ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER release_artifacts_queue_removal AFTER DELETE ON release_artifacts
FOR EACH ROW EXECUTE FUNCTION release_artifact_queue_removal();
