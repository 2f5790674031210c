// Runs once per test run in the main process. Nothing to prepare today: each test file makes
// its own database from a cached template (see test-database.ts). Kept as the one place where
// run-wide preparation belongs.
export default function setup(): void {}
