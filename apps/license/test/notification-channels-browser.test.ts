import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { startSmtpStandIn, type SmtpStandIn } from '@app/events/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('admin console notification channels page');

describe.skipIf(!executablePath)(`the notification channels page in a browser (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let browser: Browser;
  let admin: Session;
  let smtp: SmtpStandIn;
  beforeAll(async () => {
    smtp = await startSmtpStandIn();
    // The environment's own SMTP server is the stand-in on loopback: the one inner address the console may use.
    t = await buildTestApp({
      env: {
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtp.port),
        NOTIFY_EMAIL_TO: 'ops@example.com',
        NOTIFY_LICENSE_VIOLATION: 'email,telegram',
      },
    });
    admin = await t.admin();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('fills the email channel pointing to the SMTP stand-in, saves it and sends a test that arrives', async () => {
    const page = await pageAs(browser, t.baseUrl, admin);
    page.setDefaultTimeout(30_000);
    await page.goto(`${t.baseUrl}/webhooks/channels`);
    await page.getByRole('heading', { level: 1, name: 'Notification channels' }).waitFor();
    expect(
      await page
        .getByRole('navigation', { name: 'Webhooks' })
        .getByRole('link', { name: 'Endpoints' })
        .getAttribute('href'),
    ).toBe('/webhooks');
    expect(await capture(page, 'admin-notification-channels')).toBeLessThanOrEqual(390);

    // A mistake first: the card says what is missing and keeps what was typed.
    const telegram = page.getByRole('region', { name: 'Telegram', exact: true });
    await page.getByLabel('Telegram enabled').check();
    await page.getByLabel('Telegram chat id').fill('not a chat');
    await telegram.getByRole('button', { name: 'Save' }).click();
    await telegram.getByRole('alert').getByText('Telegram bot token: required while the channel is enabled.').waitFor();
    expect(await page.getByLabel('Telegram chat id').inputValue()).toBe('not a chat');
    expect(await capture(page, 'admin-notification-channels-error')).toBeLessThanOrEqual(390);

    const email = page.getByRole('region', { name: 'Email', exact: true });
    await page.getByLabel('Email enabled').check();
    // An inner address other than the environment's SMTP_HOST is refused in the form.
    await page.getByLabel('SMTP host').fill('169.254.169.254');
    await page.getByLabel('SMTP port').fill(String(smtp.port));
    await page.getByLabel('From address').fill('Licenses <licenses@example.com>');
    await page.getByLabel('Email recipients').fill('ops@example.com, oncall@example.com');
    await email.getByRole('button', { name: 'Save' }).click();
    await email.getByRole('alert').getByText('SMTP host not allowed', { exact: false }).waitFor();
    expect(await page.getByLabel('SMTP host').inputValue()).toBe('169.254.169.254');
    await page.getByLabel('SMTP host').fill('127.0.0.1');
    await email.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Email settings saved.').waitFor();
    expect(await page.getByLabel('SMTP host').inputValue()).toBe('127.0.0.1');
    expect(await page.getByLabel('Email enabled').isChecked()).toBe(true);

    expect(await page.getByLabel('Send the test email to').inputValue()).toBe('ops@example.com, oncall@example.com');
    await page.getByLabel('Send the test email to').fill('tester@example.com');
    await email.getByRole('button', { name: 'Send test' }).click();
    await page.getByRole('status').getByText('Test email sent to tester@example.com.').waitFor();
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]).toMatchObject({ to: ['tester@example.com'], from: 'licenses@example.com' });
    expect(smtp.mails[0]!.raw).toContain('Test message from the License Service');
    expect(await capture(page, 'admin-notification-channels-saved')).toBeLessThanOrEqual(390);
  }, 120_000);
});
