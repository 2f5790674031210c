import { createSessionTable } from '@app/auth';

/** The license service's sessions (connect-pg-simple's table), its own even in a database it shares. */
export const sessionTableName = 'license_session';
export const sessionTable = createSessionTable(sessionTableName);
