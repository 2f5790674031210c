export { createSettingsStore, type SettingsStore, type SettingsStoreOptions } from './settings-store.js';
export { settingsTable } from './settings.table.js';
