import { createSettingsTable } from '@app/settings';

/**
 * The license service's settings (namespaces `license` and `notification-channels`), its own
 * table even in a database it shares.
 */
export const settingsTableName = 'license_settings';
export const settingsTable = createSettingsTable(settingsTableName);
