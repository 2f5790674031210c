import { z } from 'zod';
import { configSchema } from './schema.js';

export type Config = z.infer<typeof configSchema> & {
  /** The license service's port: LICENSE_PORT, else PORT, else 3000. */
  licensePort: number;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses and validates an environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const config = result.data;
  const problems: string[] = [];
  if (
    config.OAUTH_CLIENT_ID &&
    !(config.OAUTH_AUTHORIZATION_URL && config.OAUTH_TOKEN_URL && config.OAUTH_USERINFO_URL)
  ) {
    problems.push('OAUTH_AUTHORIZATION_URL, OAUTH_TOKEN_URL, OAUTH_USERINFO_URL: required when OAUTH_CLIENT_ID is set');
  }
  if (problems.length) throw new ConfigError(problems);
  return { ...config, licensePort: config.LICENSE_PORT ?? config.PORT };
}

let cached: Config | undefined;

/** The process's configuration, read and validated once. */
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}

/** Forgets the cached configuration (tests that change the environment). */
export function resetConfig(): void {
  cached = undefined;
}
