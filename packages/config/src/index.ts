export { loadConfig, getConfig, resetConfig, ConfigError, type Config } from './load-config.js';
export { configSchema } from './schema.js';
