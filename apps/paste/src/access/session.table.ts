import { createSessionTable } from '@app/auth';

/** The paste service's sessions (connect-pg-simple's table), its own even in a database it shares. */
export const sessionTableName = 'paste_session';
export const sessionTable = createSessionTable(sessionTableName);
