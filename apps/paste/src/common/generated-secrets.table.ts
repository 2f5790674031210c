import { createGeneratedSecretsTable } from '@app/db';

/** The session secret the service generated, on a database server (migration 0009). */
export const generatedSecretsTableName = 'paste_generated_secrets';
export const generatedSecretsTable = createGeneratedSecretsTable(generatedSecretsTableName);
