// The development provider on its own, for `docker compose --profile demo up`: never in production use.
import { ConfigError, loadConfig, PortInUseError } from '@app/config';
import { startDevIdp } from './index.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const idp = await startDevIdp({
    port: config.DEV_IDP_PORT,
    host: config.DEV_IDP_HOST,
    publicUrl: config.DEV_IDP_PUBLIC_URL,
  });
  console.log(
    `DEVELOPMENT identity provider listening at ${idp.url} (browsers: ${idp.oauth.authorizationURL}); ` +
      `client id ${idp.oauth.clientID}, secret ${idp.oauth.clientSecret}. Anyone can sign in as any user id.`,
  );
  const stop = () => {
    idp.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof PortInUseError ? error.message : error);
  process.exit(1);
});
