// The container's HEALTHCHECK: exit 0 when the service in this image answers its readiness
// check. TARGET (set by the Dockerfile) says which service; the port comes from the same
// variables the service reads.
const target = process.env.TARGET ?? '';
const env = (name) => process.env[name] || undefined;
const checks = {
  'apps/paste': `http://127.0.0.1:${env('PASTE_PORT') ?? 8080}/readyz`,
  'apps/license': `http://127.0.0.1:${env('LICENSE_PORT') ?? env('PORT') ?? 3000}/readyz`,
  'packages/dev-idp': `http://127.0.0.1:${env('DEV_IDP_PORT') ?? 9000}/.well-known/openid-configuration`,
};
const url = checks[target];
if (!url) {
  console.error(`healthcheck: unknown TARGET "${target}"`);
  process.exit(1);
}
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
