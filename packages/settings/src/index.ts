export { createSettingsStore, type SettingsStore, type SettingsStoreOptions } from './settings-store.js';
export { settingsPatchSchema, type SettingsPatch } from './patch-schema.js';
export { createSettingsTable } from './settings.table.js';
