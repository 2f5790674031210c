import { createSettingsTable } from '@app/settings';

/** The paste service's settings (namespace `paste`), its own table even in a database it shares. */
export const settingsTableName = 'paste_settings';
export const settingsTable = createSettingsTable(settingsTableName);
