// `npm start`: both services, each in its own process, on the embedded database by default.
// Without a configured identity provider (and outside production) it first starts the local
// development provider and points both services at it, so a person can sign in at once, and
// sets the development defaults of ./development-env.ts (owner, admin, a JWT secret).
import { spawn, type ChildProcess } from 'node:child_process';
import { ConfigError, loadConfig, PortInUseError, startsDevelopmentProvider } from '../packages/config/src/index.js';
import { listenDevIdp, type ListeningDevIdp } from '../packages/dev-idp/src/index.js';
import { applyDevelopmentDefaults } from './development-env.js';
import { removeUnusedBundles, startBundle } from './start-build.js';
import { serviceEnv, serviceNodeFlags } from './service-runtime.js';

const services = ['paste', 'license'] as const;
type Service = (typeof services)[number];

/**
 * Each service runs as its compiled bundle (esbuild), not through tsx: the TypeScript loader cost
 * each service some 50 MB of memory and seconds of start-up (docs/performance.md). A bundle is
 * built again only when a source changed (start-build.ts).
 */
async function buildServices(): Promise<Record<Service, string>> {
  const bundles = await Promise.all(services.map(async (service) => [service, await startBundle(service)] as const));
  const built = Object.fromEntries(bundles) as Record<Service, string>;
  removeUnusedBundles(built);
  return built;
}

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  // Built while the development provider starts; a failure is reported after it (below).
  const building = buildServices().catch((error: unknown) => error);

  let devIdp: ListeningDevIdp | undefined;
  if (startsDevelopmentProvider(config)) {
    try {
      // Its port bound; the services start while it loads its mock server (they ask it nothing before a sign-in).
      devIdp = await listenDevIdp({ port: config.DEV_IDP_PORT });
    } catch (error) {
      // Nothing else has started yet: one line, and no service left half-started.
      if (error instanceof PortInUseError) {
        console.error(error.message);
        process.exit(1);
      }
      throw error;
    }
    Object.assign(env, {
      OAUTH_AUTHORIZATION_URL: devIdp.oauth.authorizationURL,
      OAUTH_TOKEN_URL: devIdp.oauth.tokenURL,
      OAUTH_USERINFO_URL: devIdp.oauth.userInfoURL,
      OAUTH_CLIENT_ID: devIdp.oauth.clientID,
      OAUTH_CLIENT_SECRET: devIdp.oauth.clientSecret,
    });
    applyDevelopmentDefaults(env, config);
    const banner = [
      '',
      '================ DEVELOPMENT IDENTITY PROVIDER ================',
      `No OAUTH_CLIENT_ID is configured, so a local OAuth 2.0 provider runs at ${devIdp.url}.`,
      'Anyone can sign in there as any user id. Never expose it; set the OAUTH_* variables for real use.',
      `  Paste owner:   open http://localhost:${config.PASTE_PORT}/auth/idp and sign in as "${env.OWNER_ID}"`,
      `  License admin: open http://localhost:${config.licensePort}/auth/idp and sign in as "${env.ADMIN_IDS!.split(',')[0]}"`,
      '  Admin API token for scripts: npm run --silent dev-token',
      '================================================================',
      '',
    ];
    console.log(banner.join('\n'));
  }

  const stopDevIdp = () =>
    devIdp?.started.then(
      (started) => started.stop(),
      () => undefined,
    );
  const built = await building;
  if (!isBuilt(built)) {
    await stopDevIdp();
    console.error(built instanceof Error ? built.message : built);
    process.exit(1);
  }
  const children = services.map((service) =>
    spawn(process.execPath, [...serviceNodeFlags, built[service]], {
      env: { ...serviceEnv, ...env },
      stdio: 'inherit',
    }),
  );

  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => stopAll('SIGINT'));
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  devIdp?.started.catch((error: unknown) => {
    console.error('The development identity provider did not start:', error);
    stopAll('SIGTERM');
  });

  const codes = await Promise.all(children.map((child) => exitCodeOf(child, () => stopAll('SIGTERM'))));
  await stopDevIdp();
  process.exit(codes.find((code) => code !== 0) ?? 0);
}

const isBuilt = (value: unknown): value is Record<Service, string> =>
  typeof value === 'object' && value !== null && !(value instanceof Error);

/** Resolves with the child's exit code; a child that dies on its own takes the other one down. */
function exitCodeOf(child: ChildProcess, onUnexpectedExit: () => void): Promise<number> {
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      if (code !== 0 && !signal) onUnexpectedExit();
      resolve(code ?? 0);
    });
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
