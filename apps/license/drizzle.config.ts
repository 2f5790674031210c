import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // The app's tables, its session and settings tables included (made by the shared packages' factories).
  schema: ['./src/**/*.table.ts'],
  out: './drizzle',
  dbCredentials: {
    url: process.env.LICENSE_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/license',
  },
});
