import type { ApiTokenRow } from '../admins/admin-token.service.js';
import type { AdminListRow } from '../admins/admins.service.js';
import { utcTime } from '../console/utc-time.js';
import type { FlashMessage } from '../console/admin-pages.js';
import type { PublicSigningKey } from '../signing/signing.js';
import { adminLayout } from '../console/layout.js';
import { tokenLifetimes, type TokenLifetime } from './admin-settings.schema.js';

// What the settings pages' views (views/settings) receive: plain data, texts unescaped (the
// views escape them), numbers formatted.

const number = (value: number) => value.toLocaleString('en-US');

/** The settings pages, as tabs under the page heading. */
export const settingsTabs = [
  { id: 'general', href: '/settings', label: 'Panic mode and limits' },
  { id: 'admins', href: '/settings/admins', label: 'Admins' },
  { id: 'two-factor', href: '/settings/two-factor', label: 'Two-factor' },
  { id: 'tokens', href: '/settings/tokens', label: 'API tokens' },
  { id: 'signing-keys', href: '/settings/signing-keys', label: 'Signing keys' },
] as const;
type Tab = (typeof settingsTabs)[number]['id'];

interface Common {
  username: string;
  messages: FlashMessage[];
  csrfToken: string;
}

const page = (title: string, tab: Tab, common: Common) => ({
  ...adminLayout(title, common.username, 'settings'),
  tabs: settingsTabs,
  tab,
  messages: common.messages,
  csrfToken: common.csrfToken,
});

/** A duration in the largest whole unit that fits: "15 minutes", "1 hour", "90 seconds". */
export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  for (const [size, unit] of [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ] as const) {
    if (seconds % size === 0 && seconds >= size)
      return `${number(seconds / size)} ${unit}${seconds === size ? '' : 's'}`;
  }
  return `${number(seconds)} second${seconds === 1 ? '' : 's'}`;
}

export interface RateLimitValues {
  enabled: boolean;
  max: string;
  windowSeconds: string;
  userMax: string;
  userWindowSeconds: string;
}
export interface GeneralView {
  panicMode: boolean;
  rateLimit: { enabled: boolean; windowMs: number; max: number };
  userRateLimit: { windowMs: number; max: number };
}

export const rateLimitValuesOf = (config: GeneralView): RateLimitValues => ({
  enabled: config.rateLimit.enabled,
  max: String(config.rateLimit.max),
  windowSeconds: String(Math.round(config.rateLimit.windowMs / 1000)),
  userMax: String(config.userRateLimit.max),
  userWindowSeconds: String(Math.round(config.userRateLimit.windowMs / 1000)),
});

/** `/settings`: the panic switch and the rate limits. */
export function generalPageData(
  common: Common,
  config: GeneralView,
  form: { values: RateLimitValues; errors: string[] },
) {
  return {
    ...page('Settings', 'general', common),
    panicMode: config.panicMode,
    panicQuestion:
      'Turn panic mode on? License validation and the customer portal will answer 503 “Service unavailable: panic mode is active” to every application and customer until an admin turns it off.',
    limits: {
      public: config.rateLimit.enabled
        ? `${number(config.rateLimit.max)} requests per ${duration(config.rateLimit.windowMs)} per client IP address`
        : 'Off: the public API is not rate limited',
      user: `${number(config.userRateLimit.max)} requests per ${duration(config.userRateLimit.windowMs)} per signed-in person`,
    },
    form,
  };
}

/** `/settings/admins`: the admins, the form to add one, a remove button each. */
export function adminsPageData(
  common: Common & { userId: string },
  admins: AdminListRow[],
  form: { userId: string; errors: string[] },
) {
  const last = admins.length <= 1;
  return {
    ...page('Admins', 'admins', common),
    form,
    count: admins.length,
    admins: admins.map((admin) => {
      const you = admin.userId === common.userId;
      const name = admin.username && admin.username !== admin.userId ? admin.username : null;
      return {
        userId: admin.userId,
        name,
        you,
        added: utcTime(admin.createdAt),
        lastSignIn: admin.lastSignInAt ? utcTime(admin.lastSignInAt) : 'not recorded yet',
        last,
        question: you
          ? `Remove yourself (${admin.userId}) as an admin? You lose access to the admin console at once.`
          : `Remove ${name ? `${name} (${admin.userId})` : admin.userId} as an admin? Their sessions and API tokens stop working at once.`,
      };
    }),
  };
}

export interface TwoFactorStatusView {
  enabled: boolean;
  required: boolean;
  backupCodesRemaining: number;
  passwordToDisable: boolean;
}
export interface TwoFactorSetupView {
  secret: string;
  otpauthUrl: string;
  qrCode: string;
}

/** `/settings/two-factor` and its steps: status, setup (QR code and secret), the backup codes once. */
export function twoFactorPageData(
  common: Common,
  status: TwoFactorStatusView,
  step: {
    setup?: TwoFactorSetupView;
    backupCodes?: string[];
    errors?: string[];
  } = {},
) {
  return {
    ...page('Two-factor authentication', 'two-factor', common),
    status,
    setup: step.setup,
    // Grouped in fours so a person can read the secret into an app by hand.
    secretGroups: step.setup?.secret.match(/.{1,4}/g)?.join(' ') ?? '',
    backupCodes: step.backupCodes,
    errors: step.errors ?? [],
  };
}

const tokenState = (token: ApiTokenRow, now: Date) =>
  token.revokedAt ? 'revoked' : token.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';

/** `/settings/tokens`: the form, the new token once, the tokens issued. */
export function tokensPageData(
  common: Common,
  list: { tokens: ApiTokenRow[]; issuingError?: string; now: Date },
  extras: {
    form: { label: string; lifetime: TokenLifetime; errors: string[] };
    issued?: { token: string; label: string; expiresAt: string };
  },
) {
  return {
    ...page('API tokens', 'tokens', common),
    issuingError: list.issuingError,
    form: extras.form,
    lifetimes: Object.entries(tokenLifetimes).map(([value, { label }]) => ({ value, label })),
    issued: extras.issued && { ...extras.issued, expires: utcTime(extras.issued.expiresAt) },
    tokens: list.tokens.map((token) => {
      const state = tokenState(token, list.now);
      return {
        id: token.id,
        shortId: token.id.slice(0, 8),
        label: token.label ?? 'Issued through POST /api/auth/token',
        admin: token.adminUserId,
        issued: utcTime(token.createdAt),
        expires: utcTime(token.expiresAt),
        state,
        revokeAction: `/settings/tokens/${encodeURIComponent(token.id)}/revoke`,
        question: `Revoke the token “${token.label ?? token.id.slice(0, 8)}”? Programs that use it are refused from now on. This cannot be undone.`,
      };
    }),
  };
}

/** `/settings/signing-keys`: every key, newest first, the current one marked; the rotate button. */
export function signingKeysPageData(common: Common, keys: PublicSigningKey[]) {
  const current = keys.find((key) => key.retiredAt === null);
  return {
    ...page('Signing keys', 'signing-keys', common),
    currentKid: current?.kid ?? null,
    keys: keys.map((key) => ({
      kid: key.kid,
      created: utcTime(key.createdAt),
      retired: key.retiredAt ? utcTime(key.retiredAt) : null,
      current: key.retiredAt === null,
    })),
    question: `Rotate the signing key? A new key signs every answer and offline file from now on; the current key ${current?.kid ?? ''} is retired. Applications that hold only its public key refuse new answers until they get the new one from /api/license/public-key.`,
  };
}
