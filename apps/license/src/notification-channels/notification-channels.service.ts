import type pg from 'pg';
import type { Config } from '@app/config';
import {
  checkOutgoingHost,
  NOTIFICATION_CHANNELS,
  refuseSmtpHost,
  SmtpHostNotAllowedError,
  type ChannelName,
  type NotificationChannel,
  type OutgoingLookup,
} from '@app/events';
import type { Logger } from '@app/http';
import type { SettingsStore } from '@app/settings';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import {
  buildChannel,
  effectiveChannels,
  missingFields,
  secretsOf,
  smtpAddressPolicy,
} from './notification-channels.effective.js';
import { parseChannelForm } from './notification-channels.forms.js';
import type { ChannelSettings, EffectiveChannels } from './notification-channels.schema.js';
import { say } from '../console/language.js';

/** A refused form: its errors; `code` names the refusal when it is more than invalid input. */
export type SaveResult = { ok: true } | { ok: false; errors: string[]; code?: 'SMTP_HOST_NOT_ALLOWED' };
export type TestResult = { ok: true; to: string[] } | { ok: false; error: string };

const channelLabels: Record<ChannelName, string> = { email: 'Email', sms: 'SMS', telegram: 'Telegram' };

/** The form's error for an SMTP host that is, or resolves to, an address the policy refuses. */
export const smtpHostNotAllowedText =
  'SMTP host not allowed: it is, or resolves to, a loopback, private or link-local address.';
/**
 * All a failed test email says, whatever went wrong: the SMTP server's answer, a refused
 * connection or a timeout would tell whoever set the host which ports are open where.
 */
export const emailNotDeliveredText = 'the message could not be delivered.';

/**
 * A test email's pace: the attempt is abandoned after `timeoutMs`, and the answer comes
 * `answerAfterMs` after the request whatever happened (delivered, refused, reset, no answer, a
 * host refused at send time), so its timing tells no open port from a closed or filtered one.
 * `answerAfterMs` is longer than `timeoutMs`; queued notifications keep the channel's own,
 * longer timeouts.
 */
export interface TestEmailTiming {
  timeoutMs: number;
  answerAfterMs: number;
}
export const TEST_EMAIL_TIMING: TestEmailTiming = { timeoutMs: 4_000, answerAfterMs: 5_000 };
const secretFields = { email: 'pass', sms: 'authToken', telegram: 'botToken' } as const;

/** A stored channel as the audit log records it: every secret replaced by whether it is set. */
function auditable(settings: ChannelSettings[ChannelName], name: ChannelName): Record<string, unknown> {
  const secret = secretFields[name];
  const record: Record<string, unknown> = { ...settings };
  const value = record[secret];
  record[secret] = value === null || value === undefined ? null : value === '' ? '(removed)' : '(set)';
  return record;
}

/**
 * A provider's error as an admin may read it: its first line, no stack, every secret of the
 * settings in force replaced (a bot token is part of Telegram's URLs), at most 300 characters.
 */
export function readableError(error: unknown, secrets: string[]): string {
  const raw = error instanceof Error ? error.message : String(error);
  let text = raw.split('\n')[0]!.trim() || 'The provider gave no reason';
  for (const secret of secrets) text = text.split(secret).join('[redacted]');
  text = text.replace(/bot\d+:[A-Za-z0-9_-]+/g, 'bot[redacted]');
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/**
 * The notification channels in force (stored settings over the environment's), their changes
 * (audited, as runtime-config's are) and the test message an admin sends from the console.
 * The notifier asks `channels()` at each send, so a change applies at once, in every instance
 * once its settings store has picked it up.
 */
export function createNotificationChannelsService(deps: {
  pool: pg.Pool;
  store: SettingsStore<ChannelSettings>;
  config: Config;
  now: () => Date;
  logger: Pick<Logger, 'warn'>;
  /** DNS for SMTP hosts (tests inject their own). */
  lookup?: OutgoingLookup;
  /** TEST_EMAIL_TIMING unless given (tests shorten it). */
  testEmailTiming?: TestEmailTiming;
}) {
  const { pool, store, config } = deps;
  const effective = (): EffectiveChannels => effectiveChannels(store.get(), config);
  const smtpPolicy = (host: string) => smtpAddressPolicy(host, config, deps.lookup);

  /** Whether an SMTP host may be saved: the check of outgoing addresses, with SMTP's exceptions. */
  async function smtpHostAllowed(host: string): Promise<boolean> {
    try {
      await checkOutgoingHost(host, smtpPolicy(host), refuseSmtpHost);
      return true;
    } catch (error) {
      if (error instanceof SmtpHostNotAllowedError) return false;
      throw error;
    }
  }

  // Channel objects are rebuilt only when the stored settings change (the store gives a new frozen object then).
  let built: { from: ChannelSettings; channels: Partial<Record<ChannelName, NotificationChannel>> } | undefined;
  const channels = (): Partial<Record<ChannelName, NotificationChannel>> => {
    const stored = store.get();
    if (built?.from !== stored) {
      const inForce = effectiveChannels(stored, config);
      const made: Partial<Record<ChannelName, NotificationChannel>> = {};
      for (const name of NOTIFICATION_CHANNELS) {
        const channel = inForce[name].enabled ? buildChannel(inForce, name, smtpPolicy) : undefined;
        if (channel) made[name] = channel;
      }
      built = { from: stored, channels: made };
    }
    return built.channels;
  };

  return {
    effective,
    channels,
    label: (name: ChannelName) => channelLabels[name],

    /** Saves one channel's form: a blank secret keeps the one in force. */
    async save(actor: Actor, name: ChannelName, form: Record<string, string | undefined>): Promise<SaveResult> {
      const current = effective();
      const parsed = parseChannelForm(name, form, current);
      if (!parsed.ok) return parsed;
      const host = parsed.patch.email?.host;
      if (name === 'email' && host && !(await smtpHostAllowed(host))) {
        return { ok: false, errors: [smtpHostNotAllowedText], code: 'SMTP_HOST_NOT_ALLOWED' };
      }
      const before = store.get();
      const after = await store.update(parsed.patch);
      await recordAudit(pool, actor, {
        action: 'update',
        resourceType: 'notification',
        resourceId: name,
        before: auditable(before[name], name),
        after: auditable(after[name], name),
      });
      return { ok: true };
    },

    /** Sends a test message through one channel right away (enabled or not), to `recipient` or the configured ones. */
    async sendTest(actor: Actor, name: ChannelName, recipient: string): Promise<TestResult> {
      const current = effective();
      const recipients = recipient
        .split(/[,\s]+/)
        .map((part) => part.trim())
        .filter(Boolean);
      const defaults =
        name === 'email'
          ? current.email.to
          : name === 'sms'
            ? current.sms.to
            : [current.telegram.chatId].filter(Boolean);
      const to = recipients.length ? recipients : defaults;
      const audit = (success: boolean, after: Record<string, unknown>) =>
        recordAudit(pool, actor, {
          action: 'create',
          resourceType: 'notification',
          resourceId: `${name}:test`,
          success,
          after: { to, ...after },
        });
      const channel = buildChannel(current, name, smtpPolicy);
      if (!channel) {
        const missing = missingFields(current, name);
        const error = `${channelLabels[name]} cannot send yet: set ${missing.join(', ')} and save first.`;
        await audit(false, { error });
        return { ok: false, error };
      }
      if (!to.length) {
        const error = 'Enter a recipient for the test message.';
        await audit(false, { error });
        return { ok: false, error };
      }
      // In the language of the admin's page (the console's form; the API's is English).
      const message = {
        subject: say('notifications.test.subject'),
        text: say('notifications.test.text', { channel: channelLabels[name], time: deps.now().toISOString() }),
      };
      /** Sends; answers the error, or undefined when it was sent. */
      const attempt = async (send: () => Promise<void>): Promise<unknown> => {
        try {
          await send();
          return undefined;
        } catch (error) {
          return error ?? new Error('failed');
        }
      };
      const settle = async (error: unknown): Promise<TestResult> => {
        if (error === undefined) {
          await audit(true, {});
          return { ok: true, to };
        }
        const detail = readableError(error, secretsOf(current));
        if (name !== 'email') {
          await audit(false, { error: detail });
          return { ok: false, error: detail };
        }
        // The reason is for the operator's log only (SmtpHostNotAllowedError carries why).
        const reason =
          error instanceof SmtpHostNotAllowedError
            ? `${detail}: ${readableError(error.reason, secretsOf(current))}`
            : detail;
        deps.logger.warn({ channel: name, error: reason }, 'test email failed');
        await audit(false, { error: emailNotDeliveredText });
        return { ok: false, error: emailNotDeliveredText };
      };
      if (name !== 'email') return settle(await attempt(() => channel.send(message, to)));
      // Email: bounded, and answered at a fixed time whatever happened (TEST_EMAIL_TIMING).
      const timing = deps.testEmailTiming ?? TEST_EMAIL_TIMING;
      const started = performance.now();
      const result = await settle(await attempt(() => withDeadline(channel.send(message, to), timing.timeoutMs)));
      await delay(started + timing.answerAfterMs - performance.now());
      return result;
    },
  };
}

/** `promise`, or a failure after `ms` (the abandoned attempt ends by the channel's own timeouts). */
function withDeadline(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => {});
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
