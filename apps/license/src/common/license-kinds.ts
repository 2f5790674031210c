// The kinds of license and of expiry: the licenses' columns, and a policy's defaults for them.
// Here rather than in licenses.table.ts, so that policies need not import the licenses feature
// that references them.

export const licenseTypes = ['fixed', 'trial', 'consumption', 'enterprise'] as const;
export type LicenseType = (typeof licenseTypes)[number];
export const expirationStrategies = ['revoke', 'maintain'] as const;
export type ExpirationStrategy = (typeof expirationStrategies)[number];
