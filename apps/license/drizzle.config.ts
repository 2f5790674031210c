import { existsSync } from 'node:fs';
import { defineConfig } from 'drizzle-kit';

// The session and settings tables belong to shared packages but live in this app's database.
const shared = ['../../packages/auth/src/session.table.ts', '../../packages/settings/src/settings.table.ts'];

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/**/*.table.ts', ...shared.filter((file) => existsSync(new URL(file, import.meta.url)))],
  out: './drizzle',
  dbCredentials: { url: process.env.LICENSE_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/license' },
});
