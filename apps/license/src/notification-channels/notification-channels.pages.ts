import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { NOTIFICATION_CHANNELS, type ChannelName } from '@app/events';
import { actorOf } from '../common/actor.js';
import { consoleAdminName, redirectWithFlash, takeFlash, type AuditFailure } from '../console/admin-pages.js';
import {
  channelsPageData,
  channelsPath,
  valuesTyped,
  type ChannelsPageInput,
} from './notification-channels.page-data.js';
import {
  emailFormSchema,
  smsFormSchema,
  telegramFormSchema,
  testFormSchema,
  type ChannelSettings,
} from './notification-channels.schema.js';
import type { createNotificationChannelsService } from './notification-channels.service.js';

// The admin console's notification channels page, in the Webhooks section: one card per
// channel (email, SMS, Telegram) with its settings form and a "Send test" form. Plain HTML
// forms post here with the session's CSRF token in `_csrf`; after each the browser is
// redirected (post, redirect, get) to the page, which shows what happened once.

const tags = ['pages'];
const channelParams = z.object({ channel: z.enum(NOTIFICATION_CHANNELS) });
/** Every channel form's fields (each channel reads its own). */
const channelForm = emailFormSchema.extend(smsFormSchema.shape).extend(telegramFormSchema.shape);

const pageResponses = {
  200: { description: 'The page', contentType: 'text/html' },
  303: { description: 'Not signed in or two-factor pending: to `/`' },
  403: { description: 'Not an admin', contentType: 'text/html' },
};
const writeResponses = {
  303: { description: 'Done (or not signed in): to the page that shows the message' },
  400: { description: 'The page with what is wrong in the form', contentType: 'text/html' },
  403: { description: 'Not an admin, or no valid CSRF token', contentType: 'text/html' },
};

const testNouns: Record<ChannelName, string> = {
  email: 'Test email',
  sms: 'Test SMS',
  telegram: 'Test Telegram message',
};

type Service = ReturnType<typeof createNotificationChannelsService>;

export function notificationChannelPages(deps: {
  service: Service;
  stored: () => ChannelSettings;
  routing: Record<string, ChannelName[]>;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  auditFailure: AuditFailure;
}): AnyRoute[] {
  const { service } = deps;

  function render(req: Request, res: Response, username: string, failed?: ChannelsPageInput['failed'], status = 200) {
    res
      .status(status)
      .render(
        'notification-channels/channels',
        channelsPageData(
          username,
          { effective: service.effective(), stored: deps.stored(), routing: deps.routing, failed },
          { messages: takeFlash(req), csrfToken: deps.csrfToken(req) },
        ),
      );
  }

  return [
    defineRoute({
      method: 'get',
      path: channelsPath,
      summary: 'The notification channels page',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      description:
        'Admins: the email, SMS and Telegram channels in force (secrets shown only as set, with at most their last 4 characters), each with its settings form and a test button.',
      responses: pageResponses,
      handler: ({ req, res }) => render(req, res, consoleAdminName(req)),
    }),
    defineRoute({
      method: 'post',
      path: `${channelsPath}/:channel`,
      summary: 'Save a notification channel (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: channelParams,
      body: channelForm,
      description:
        "Stored in the database for every instance; a blank secret keeps the one in force. An SMTP host that is, or resolves to, a loopback, private or link-local address answers 400 `SMTP host not allowed`, unless it is the environment's SMTP_HOST or SMTP_ALLOW_PRIVATE=true.",
      responses: writeResponses,
      handler: async ({ params, body, req, res }) => {
        const username = consoleAdminName(req);
        const name = params.channel;
        const saved = await service.save(actorOf(req), name, body);
        if (!saved.ok) {
          await deps.auditFailure(
            req,
            { action: 'update', resourceType: 'notification', resourceId: name },
            appError(saved.code ?? 'VALIDATION_FAILED'),
          );
          return render(req, res, username, { name, values: valuesTyped(body, name), errors: saved.errors }, 400);
        }
        return redirectWithFlash(req, res, `${channelsPath}#${name}`, {
          type: 'success',
          text: `${service.label(name)} settings saved.`,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: `${channelsPath}/:channel/test`,
      summary: 'Send a test message through a notification channel (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: channelParams,
      body: testFormSchema,
      description:
        'Sent at once (not queued) to the recipient typed, or the configured ones; the flash message says whether the provider accepted it (for email, only that delivery failed: the reason goes to the server log).',
      responses: writeResponses,
      handler: async ({ params, body, req, res }) => {
        const name = params.channel;
        const result = await service.sendTest(actorOf(req), name, body.recipient ?? '');
        return redirectWithFlash(
          req,
          res,
          `${channelsPath}#${name}`,
          result.ok
            ? { type: 'success', text: `${testNouns[name]} sent to ${result.to.join(', ')}.` }
            : { type: 'error', text: `${testNouns[name]} failed: ${result.error}` },
        );
      },
    }),
  ];
}
