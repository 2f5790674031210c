-- A validation from a new IP or hardware id rewrites its license row (the lists grow). Room left
-- on every page lets PostgreSQL put the new row version on the same page (a HOT update), which
-- touches none of the licenses' six indexes; with full pages about a third of these updates had
-- to write an entry into every index.
ALTER TABLE "licenses" SET (fillfactor = 85);
