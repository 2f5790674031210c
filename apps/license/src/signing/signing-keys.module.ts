import type { FeatureModule, Guard } from '@app/http';
import { signingKeyRoutes } from './signing-keys.routes.js';
import type { SigningKeysService } from './signing-keys.service.js';
import type { SigningKeyring } from './signing.js';

/** The admin API that rotates the signing key; owns the keyring's refresh timer. */
export function signingKeysModule(needs: {
  service: SigningKeysService;
  keyring: SigningKeyring;
  admin: Guard;
}): FeatureModule {
  return {
    name: 'signing-keys',
    routes: signingKeyRoutes({ service: needs.service, admin: needs.admin }),
    close: () => needs.keyring.close(),
  };
}
