import { defineConfig } from 'drizzle-kit';

// The app's tables, its session and settings tables included (made by the shared packages' factories).
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/**/*.table.ts'],
  out: './drizzle',
});
