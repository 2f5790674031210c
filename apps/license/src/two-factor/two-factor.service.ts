import type pg from 'pg';
import { authenticator } from 'otplib';
import { type LicenseErrorCode, appError } from '../common/error-codes.js';
import { withTransaction } from '@app/db';
import type { Actor } from '../common/actor.js';
import { recordAudit } from '../audit/audit.service.js';
import {
  checkPassword,
  createSecretBox,
  generateBackupCode,
  hashBackupCode,
  hashConfiguredPassword,
  matchBackupCode,
} from './two-factor.crypto.js';
import * as repo from './two-factor.repository.js';

/** qrcode (57 files with pngjs) loads at the first two-factor setup, not at every start (docs/performance.md). */
const loadQrCode = () => import('qrcode');

export interface TwoFactorOptions {
  pool: pg.Pool;
  now: () => Date;
  /** Key material for sealing TOTP secrets at rest. */
  sessionSecret: string;
  issuer: string;
  required: boolean;
  /** When set, disabling needs this password (plain or a bcrypt hash). */
  disablePassword?: string;
  maxAttempts: number;
  windowMs: number;
  backupCodeCount?: number;
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;

/** A wrong code, a wrong password or a locked-out admin: a failed sign-in, for the `security` notifications. */
export interface TwoFactorSecurityEvent {
  userId: string;
  ip: string | null;
  reason: 'invalid_code' | 'invalid_password' | 'rate_limited';
}

const STEP_SECONDS = 30;

export function createTwoFactorService(options: TwoFactorOptions) {
  const { pool, now } = options;
  const box = createSecretBox(options.sessionSecret);
  // Hashed once at start, so the plain password is never compared as a string.
  const passwordHash = options.disablePassword ? hashConfiguredPassword(options.disablePassword) : undefined;
  // Bound later: notifications are built after the admin guard that needs this service.
  let onSecurityEvent: ((event: TwoFactorSecurityEvent) => Promise<unknown>) | undefined;
  const reportSecurityEvent = (event: TwoFactorSecurityEvent) => {
    // Never fails the request: the audit log already holds the attempt.
    void onSecurityEvent?.(event).catch(() => {});
  };

  /** The accepted time step of a token (one step of clock drift either way), or undefined. */
  function acceptedStep(token: string, secret: string): number | undefined {
    const epoch = now().getTime();
    const delta = authenticator.clone({ window: 1, epoch }).checkDelta(token.replace(/\s/g, ''), secret);
    return delta === null ? undefined : Math.floor(epoch / 1000 / STEP_SECONDS) + delta;
  }

  /** Counts the attempt first; over the limit the code is not even looked at. */
  async function countAttempt(actor: Actor): Promise<void> {
    const attempts = await repo.countAttempt(pool, actor.userId, now(), options.windowMs);
    if (attempts > options.maxAttempts) {
      await recordAudit(pool, actor, {
        action: 'login',
        resourceType: 'admin',
        resourceId: actor.userId,
        success: false,
        after: { twoFactor: 'rate_limited' },
      });
      reportSecurityEvent({ userId: actor.userId, ip: actor.ip, reason: 'rate_limited' });
      throw appError('TOO_MANY_REQUESTS');
    }
  }

  async function refuse(
    actor: Actor,
    code: LicenseErrorCode,
    what: 'invalid_code' | 'invalid_password' = 'invalid_code',
  ): Promise<never> {
    await recordAudit(pool, actor, {
      action: 'login',
      resourceType: 'admin',
      resourceId: actor.userId,
      success: false,
      after: { twoFactor: what },
    });
    reportSecurityEvent({ userId: actor.userId, ip: actor.ip, reason: what });
    throw appError(code);
  }

  const setupOf = async (secret: string, label: string) => {
    const otpauthUrl = authenticator.keyuri(label, options.issuer, secret);
    return { secret, otpauthUrl, qrCode: await (await loadQrCode()).default.toDataURL(otpauthUrl) };
  };

  return {
    required: options.required,
    /** Whether turning two-factor off asks for TWO_FACTOR_DISABLE_PASSWORD. */
    passwordToDisable: Boolean(passwordHash),

    /** Where failed two-factor attempts are reported (the `security` notifications). */
    onSecurityEvent(listener: (event: TwoFactorSecurityEvent) => Promise<unknown>): void {
      onSecurityEvent = listener;
    },

    /** What the admin session still owes: `verify` a code, or `setup` two-factor first (required by configuration). */
    async pending(userId: string): Promise<'verify' | 'setup' | undefined> {
      const row = await repo.findTwoFactor(pool, userId);
      if (row?.enabled) return 'verify';
      return options.required ? 'setup' : undefined;
    },

    async status(userId: string, verified: boolean) {
      const row = await repo.findTwoFactor(pool, userId);
      const enabled = row?.enabled ?? false;
      return {
        enabled,
        required: options.required,
        verified: enabled ? verified : false,
        backupCodesRemaining: enabled ? await repo.countUnusedBackupCodes(pool, userId) : 0,
      };
    },

    async setup(actor: Actor, label: string) {
      const secret = authenticator.generateSecret(20);
      if (!(await repo.savePendingSecret(pool, actor.userId, box.seal(secret)))) {
        throw appError('TWO_FACTOR_ALREADY_ENABLED');
      }
      const setup = await setupOf(secret, label);
      await recordAudit(pool, actor, {
        action: 'view',
        resourceType: 'admin',
        resourceId: actor.userId,
        after: { twoFactorSetup: 'secret issued' },
      });
      return setup;
    },

    /** The setup started and not yet confirmed (the console's page shows it again after a wrong code), or undefined. */
    async pendingSetup(userId: string, label: string) {
      const row = await repo.findTwoFactor(pool, userId);
      if (row?.enabled || !row?.pendingSecret) return undefined;
      return setupOf(box.open(row.pendingSecret), label);
    },

    async enable(actor: Actor, token: string): Promise<string[]> {
      const row = await repo.findTwoFactor(pool, actor.userId);
      if (row?.enabled) throw appError('TWO_FACTOR_ALREADY_ENABLED');
      if (!row?.pendingSecret) throw appError('TWO_FACTOR_SETUP_NOT_STARTED');
      await countAttempt(actor);
      const secret = box.open(row.pendingSecret);
      if (acceptedStep(token, secret) === undefined) await refuse(actor, 'TWO_FACTOR_INVALID_TOKEN');
      const codes = Array.from({ length: options.backupCodeCount ?? 10 }, generateBackupCode);
      const hashes = await Promise.all(codes.map(hashBackupCode));
      const enabled = await withTransaction(pool, async (client) => {
        if (!(await repo.enableTwoFactor(client, actor.userId, box.seal(secret), hashes, now()))) return false;
        await repo.resetAttempts(client, actor.userId);
        await recordAudit(client, actor, {
          action: 'update',
          resourceType: 'admin',
          resourceId: actor.userId,
          before: { twoFactorEnabled: false },
          after: { twoFactorEnabled: true },
        });
        return true;
      });
      if (!enabled) throw appError('TWO_FACTOR_ALREADY_ENABLED');
      return codes;
    },

    /** Checks a TOTP token or a backup code; each token's time step and each backup code is accepted once. */
    async verify(actor: Actor, input: { token?: string; backupCode?: string }, sessionVerified = false) {
      const row = await repo.findTwoFactor(pool, actor.userId);
      await countAttempt(actor);
      // Without two-factor on there is no code that could be right: the same answer as a wrong code.
      if (!row?.enabled || !row.secret) return refuse(actor, 'TWO_FACTOR_INVALID_CODE');
      let method: 'totp' | 'backup_code' | undefined;
      if (input.token) {
        const step = acceptedStep(input.token, box.open(row.secret));
        // A code seen before is refused (someone read it over a shoulder), except from the very
        // session that has already verified: repeating itself gains it nothing.
        if (step !== undefined && ((await repo.useTimeStep(pool, actor.userId, step)) || sessionVerified))
          method = 'totp';
      }
      if (!method && input.backupCode) {
        const unused = await repo.unusedBackupCodes(pool, actor.userId);
        const index = await matchBackupCode(
          input.backupCode,
          unused.map((code) => code.codeHash),
        );
        const match = unused[index];
        if (match && (await repo.spendBackupCode(pool, actor.userId, match.id, now()))) method = 'backup_code';
      }
      if (!method) return refuse(actor, 'TWO_FACTOR_INVALID_CODE');
      await repo.resetAttempts(pool, actor.userId);
      await recordAudit(pool, actor, {
        action: 'login',
        resourceType: 'admin',
        resourceId: actor.userId,
        after: { twoFactor: method },
      });
      return { method, backupCodesRemaining: await repo.countUnusedBackupCodes(pool, actor.userId) };
    },

    async disable(actor: Actor, verified: boolean, password: string | undefined): Promise<void> {
      if (options.required) throw appError('TWO_FACTOR_REQUIRED_BY_CONFIG');
      const row = await repo.findTwoFactor(pool, actor.userId);
      // Already off: the state the caller asked for, so the answer is success, not an error.
      if (!row?.enabled) return;
      // Otherwise a stolen, unverified session could simply switch the second factor off.
      if (!verified) throw appError('TWO_FACTOR_VERIFICATION_REQUIRED');
      if (passwordHash) {
        if (!password) throw appError('TWO_FACTOR_PASSWORD_REQUIRED');
        await countAttempt(actor);
        if (!(await checkPassword(password, passwordHash)))
          await refuse(actor, 'TWO_FACTOR_INVALID_PASSWORD', 'invalid_password');
      }
      await withTransaction(pool, async (client) => {
        await repo.disableTwoFactor(client, actor.userId);
        await repo.resetAttempts(client, actor.userId);
        await recordAudit(client, actor, {
          action: 'update',
          resourceType: 'admin',
          resourceId: actor.userId,
          before: { twoFactorEnabled: true },
          after: { twoFactorEnabled: false },
        });
      });
    },
  };
}
