import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@app/config';
import { channelsFromConfig, routingFromConfig } from '../../src/notifications/notifications.service.js';
import { webhookSettings } from '../../src/webhooks/webhooks.service.js';

describe('webhook and notification configuration', () => {
  it('reads the webhook settings with their defaults (every event, 5 s timeout, 32 retries, 16 at once, no private addresses)', () => {
    expect(webhookSettings(loadConfig({}))).toEqual({
      url: undefined,
      events: [],
      timeoutMs: 5000,
      retries: 32,
      secret: undefined,
    });
    expect(loadConfig({})).toMatchObject({
      WEBHOOK_CONCURRENCY: 16,
      WEBHOOK_ALLOW_PRIVATE: false,
      SMTP_ALLOW_PRIVATE: false,
    });
    expect(
      loadConfig({ WEBHOOK_CONCURRENCY: '4', WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_ALLOW_PRIVATE: 'true' }),
    ).toMatchObject({ WEBHOOK_CONCURRENCY: 4, WEBHOOK_ALLOW_PRIVATE: true, SMTP_ALLOW_PRIVATE: true });
    expect(
      webhookSettings(
        loadConfig({
          WEBHOOK_URL: 'https://hooks.example.com/x',
          WEBHOOK_EVENTS: 'LICENSE_EXPIRED, AUTOMATED_ACTION',
          WEBHOOK_TIMEOUT_MS: '1500',
          WEBHOOK_RETRIES: '0',
          WEBHOOK_SECRET: 's',
        }),
      ),
    ).toEqual({
      url: 'https://hooks.example.com/x',
      events: ['LICENSE_EXPIRED', 'AUTOMATED_ACTION'],
      timeoutMs: 1500,
      retries: 0,
      secret: 's',
    });
  });

  it.each([
    { name: 'an unknown webhook event', env: { WEBHOOK_EVENTS: 'LICENSE_CREATE' }, variable: 'WEBHOOK_EVENTS' },
    { name: 'an unknown channel', env: { NOTIFY_ANOMALY: 'email,pager' }, variable: 'NOTIFY_ANOMALY' },
    { name: 'a timeout of zero', env: { WEBHOOK_TIMEOUT_MS: '0' }, variable: 'WEBHOOK_TIMEOUT_MS' },
    { name: 'a webhook URL that is not a URL', env: { WEBHOOK_URL: 'hooks' }, variable: 'WEBHOOK_URL' },
    { name: 'a webhook concurrency of zero', env: { WEBHOOK_CONCURRENCY: '0' }, variable: 'WEBHOOK_CONCURRENCY' },
  ])('fails at start-up on $name', ({ env, variable }) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it('routes each kind to its NOTIFY_ channels, and configures only the channels that have their settings', () => {
    const config = loadConfig({
      NOTIFY_ANOMALY: 'sms,telegram',
      NOTIFY_SECURITY: 'email',
      SMTP_HOST: 'smtp.example.com',
      TELEGRAM_BOT_TOKEN: '1:x',
      TELEGRAM_CHAT_ID: '5',
      TWILIO_ACCOUNT_SID: `AC${'1'.repeat(32)}`,
    });
    expect(routingFromConfig(config)).toEqual({
      license_expiring: [],
      license_violation: [],
      anomaly: ['sms', 'telegram'],
      security: ['email'],
      transaction: [],
      automated_action: [],
      custom: [],
    });
    // Twilio lacks its token and sender: SMS stays off.
    expect(Object.keys(channelsFromConfig(config)).sort()).toEqual(['email', 'telegram']);
  });
});
