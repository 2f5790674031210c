import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import type { AuditTarget } from '../common/audit-target.js';
import { appError } from '../common/error-codes.js';
import { actorOf } from '../common/actor.js';
import {
  consoleAdminName,
  consoleWrites,
  errorSentence,
  formErrors,
  redirectWithFlash,
  takeFlash,
  type AuditFailure,
  type WriteOutcome,
} from '../console/admin-pages.js';
import type { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { createEndpointSchema } from './webhook-endpoints.schema.js';
import {
  deliveriesAddress,
  deliveriesHref,
  deliveriesPageData,
  deliveriesPageSize,
  emptyEndpointForm,
  endpointHref,
  endpointsPageData,
  newEndpointPageData,
  secretPageData,
  webhooksHref,
  type EndpointFormState,
} from './webhooks.page-data.js';
import type { createWebhooksService } from './webhooks.service.js';
import { pageNumber, pageSlice } from '../console/paging.js';

// The admin console's webhook pages (the JSON API is webhooks.routes.ts): endpoints, their
// one-time secrets, and the delivery log. Forms post with the session's CSRF token in `_csrf`;
// every write goes through the endpoints or deliveries service (audited there), then the browser
// is redirected (post, redirect, get) to a page that shows what happened once.

const tags = ['pages'];
const idParams = z.object({ id: z.string() });
const endpointForm = z.object({
  url: z.string().max(10_000).optional(),
  events: z.union([z.string().max(100), z.array(z.string().max(100)).max(50)]).optional(),
});
type EndpointForm = z.infer<typeof endpointForm>;
const deliveriesQuery = z.object({
  status: z.enum(['pending', 'delivered', 'failed']).optional().catch(undefined),
  page: pageNumber,
});

const eventsOf = (form: EndpointForm) =>
  form.events === undefined ? [] : Array.isArray(form.events) ? form.events : [form.events];
const stateOf = (form: EndpointForm, errors: string[]): EndpointFormState => ({
  values: { url: form.url ?? '', events: eventsOf(form) },
  errors,
});

const pageResponses = {
  200: { description: 'The page', contentType: 'text/html' },
  303: { description: 'Not signed in or two-factor pending: to `/`' },
  403: { description: 'Not an admin', contentType: 'text/html' },
};
const writeResponses = {
  303: { description: 'Done (or not signed in): to the page that shows the message' },
  400: { description: 'The form with what is wrong', contentType: 'text/html' },
  403: { description: 'Not an admin, or no valid CSRF token', contentType: 'text/html' },
  404: { description: 'No such endpoint or delivery', contentType: 'text/html' },
};

export function webhookPages(deps: {
  endpoints: WebhookEndpointsService;
  deliveries: ReturnType<typeof createWebhooksService>;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  auditFailure: AuditFailure;
}): AnyRoute[] {
  const { endpoints } = deps;
  const extras = (req: Request) => ({ messages: takeFlash(req), csrfToken: deps.csrfToken(req) });
  const { writeThenRedirect } = consoleWrites(deps.auditFailure);
  const auditTarget = (action: 'create' | 'update' | 'delete', resourceId: string | null): AuditTarget => ({
    action,
    resourceType: 'notification',
    resourceId,
  });
  const failed = (req: Request, action: 'create' | 'update' | 'delete', resourceId: string | null, error: unknown) =>
    deps.auditFailure(req, auditTarget(action, resourceId), error);

  /** Runs an endpoint write and shows its outcome; a missing endpoint shows the 404 page (and is audited as failed). */
  const endpointAction = (
    path: string,
    summary: string,
    action: 'update' | 'delete' | 'create',
    write: (req: Request, id: string) => Promise<WriteOutcome>,
  ) =>
    defineRoute({
      method: 'post',
      path,
      summary,
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      responses: writeResponses,
      handler: ({ params, req, res }) =>
        writeThenRedirect(req, res, {
          write: () => write(req, params.id),
          audit: auditTarget(action, params.id),
          // Only a missing endpoint is answered here (the 404 page); the page has no place for other refusals.
          when: (error) => error.status === 404,
          back: endpointHref(params.id),
        }),
    });

  const renderNew = (req: Request, res: Response, username: string, form: EndpointFormState, status = 200) =>
    res.status(status).render('webhooks/new', newEndpointPageData(username, form, extras(req)));

  return [
    defineRoute({
      method: 'get',
      path: webhooksHref,
      summary: 'The webhook endpoints page',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      description:
        'Admins: every endpoint with its events, state and latest delivery; add, test, enable or disable, rotate its secret, delete.',
      responses: pageResponses,
      handler: async ({ req, res }) => {
        const username = consoleAdminName(req);
        res.render('webhooks/list', endpointsPageData(username, await endpoints.list(), extras(req)));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/new',
      summary: 'The form of a new webhook endpoint',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      responses: pageResponses,
      handler: ({ req, res }) => renderNew(req, res, consoleAdminName(req), emptyEndpointForm()),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/endpoints',
      summary: 'Add a webhook endpoint (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      body: endpointForm,
      description:
        'A loopback, private or link-local URL answers 400 `Webhook URL not allowed` unless WEBHOOK_ALLOW_PRIVATE=true. Then to the page that shows its secret once.',
      responses: writeResponses,
      // A refused URL: the form again, saying why.
      refused: {
        when: (error) => error.status === 400,
        render: async (error, { body, req, res }) => {
          await failed(req, 'create', null, error);
          renderNew(req, res, consoleAdminName(req), stateOf(body, [errorSentence(error)]), 400);
        },
      },
      handler: async ({ body, req, res }) => {
        const username = consoleAdminName(req);
        const parsed = createEndpointSchema.safeParse({ url: body.url?.trim() ?? '', events: eventsOf(body) });
        if (!parsed.success) {
          await failed(req, 'create', null, appError('VALIDATION_FAILED'));
          return renderNew(
            req,
            res,
            username,
            stateOf(
              body,
              formErrors(
                parsed.error,
                { url: 'URL', events: 'Events' },
                {
                  url: 'URL: enter an http:// or https:// address.',
                  events: 'Events: choose among the listed events.',
                },
              ),
            ),
            400,
          );
        }
        const { endpoint, secret } = await endpoints.create(actorOf(req), parsed.data);
        req.session.oneTimeSecret = { for: endpointHref(endpoint._id), secret };
        await redirectWithFlash(req, res, `${endpointHref(endpoint._id)}/secret`, {
          type: 'success',
          text: `Endpoint ${endpoint.url} added.`,
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/endpoints/:id/secret',
      summary: "An endpoint's new secret, shown once",
      tags,
      guard: deps.adminPage,
      answer: 'page',
      params: idParams,
      responses: { ...pageResponses, 404: { description: 'No such endpoint', contentType: 'text/html' } },
      handler: async ({ params, req, res }) => {
        const username = consoleAdminName(req);
        const endpoint = await endpoints.get(params.id);
        // Shown once: taken out of the session as it is shown.
        const kept = req.session.oneTimeSecret;
        const secret = kept?.for === endpointHref(endpoint._id) ? kept.secret : undefined;
        if (secret) delete req.session.oneTimeSecret;
        res.render('webhooks/secret', secretPageData(username, endpoint, secret, extras(req)));
      },
    }),
    endpointAction(
      '/webhooks/endpoints/:id/rotate',
      'Make a new secret for an endpoint (form)',
      'update',
      async (req, id) => {
        const { endpoint, secret } = await endpoints.rotate(actorOf(req), id);
        req.session.oneTimeSecret = { for: endpointHref(endpoint._id), secret };
        return {
          to: `${endpointHref(endpoint._id)}/secret`,
          message: { type: 'success', text: `New secret made for ${endpoint.url}; the old one no longer signs.` },
        };
      },
    ),
    endpointAction('/webhooks/endpoints/:id/enable', 'Enable an endpoint (form)', 'update', async (req, id) => {
      const endpoint = await endpoints.setEnabled(actorOf(req), id, true);
      return { to: webhooksHref, message: { type: 'success', text: `Endpoint ${endpoint.url} enabled.` } };
    }),
    endpointAction('/webhooks/endpoints/:id/disable', 'Disable an endpoint (form)', 'update', async (req, id) => {
      const endpoint = await endpoints.setEnabled(actorOf(req), id, false);
      return {
        to: webhooksHref,
        message: { type: 'success', text: `Endpoint ${endpoint.url} disabled: it gets no new events.` },
      };
    }),
    endpointAction('/webhooks/endpoints/:id/delete', 'Delete an endpoint (form)', 'delete', async (req, id) => {
      const endpoint = await endpoints.remove(actorOf(req), id);
      return { to: webhooksHref, message: { type: 'success', text: `Endpoint ${endpoint.url} deleted.` } };
    }),
    endpointAction(
      '/webhooks/endpoints/:id/test',
      'Queue a test delivery to an endpoint (form)',
      'create',
      async (req, id) => {
        await endpoints.sendTest(actorOf(req), id);
        return { to: deliveriesHref, message: { type: 'success', text: 'Test delivery queued (event webhook.test).' } };
      },
    ),
    defineRoute({
      method: 'get',
      path: deliveriesHref,
      summary: 'The webhook delivery log',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      query: deliveriesQuery,
      description: `Admins: deliveries newest first, ${deliveriesPageSize} to a \`page\`, filtered by \`status\`; delivered and failed ones can be sent again.`,
      responses: pageResponses,
      handler: async ({ query, req, res }) => {
        const username = consoleAdminName(req);
        const [{ deliveries, total }, known] = await Promise.all([
          deps.deliveries.list({
            status: query.status,
            ...pageSlice(query.page, deliveriesPageSize),
          }),
          endpoints.list(),
        ]);
        res.render(
          'webhooks/deliveries',
          deliveriesPageData(
            username,
            {
              deliveries,
              total,
              status: query.status,
              page: query.page,
              endpoints: new Map(known.map((endpoint) => [endpoint._id, endpoint.url])),
            },
            extras(req),
          ),
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/deliveries/:id/redeliver',
      summary: 'Send a delivery again (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      description: 'Back to the delivery log with the same `status` filter and `page`.',
      query: deliveriesQuery,
      responses: { ...writeResponses, 409: { description: 'Already pending: back to the log with the message' } },
      handler: async ({ params, query, req, res }) => {
        const back = deliveriesAddress(query.status, query.page);
        await writeThenRedirect(req, res, {
          write: async () => {
            await deps.deliveries.redeliver(actorOf(req), params.id);
            return { to: back, message: { type: 'success', text: 'Delivery queued again.' } };
          },
          audit: auditTarget('update', params.id),
          when: (error) => error.status === 404 || error.status === 409,
          back,
          say: errorSentence,
        });
      },
    }),
  ];
}
