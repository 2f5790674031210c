import { defineConfig } from 'drizzle-kit';

// The app's own tables plus the shared ones it stores (sessions, settings).
export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './src/**/*.table.ts',
    '../../packages/auth/src/session.table.ts',
    '../../packages/settings/src/settings.table.ts',
  ],
  out: './drizzle',
});
