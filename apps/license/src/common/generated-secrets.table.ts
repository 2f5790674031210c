import { createGeneratedSecretsTable } from '@app/db';

/** The session secret the service generated, on a database server (migration 0013). */
export const generatedSecretsTableName = 'license_generated_secrets';
export const generatedSecretsTable = createGeneratedSecretsTable(generatedSecretsTableName);
