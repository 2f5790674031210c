import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { actorOf } from '../common/actor.js';
import {
  consoleAdminName,
  consoleWrites,
  errorSentence,
  redirectWithFlash,
  takeFlash,
  type AuditFailure,
  type FlashMessage,
} from '../console/admin-pages.js';
import { notFoundData } from '../console/layout.js';
import { runNeedsLicense } from './automations.catalogue.js';
import {
  automationFormOf,
  automationInputOf,
  emptyAutomationForm,
  type AutomationFormState,
  type FormValues,
} from './automations.form.js';
import {
  automationDetailData,
  automationFormData,
  automationHref,
  automationsListData,
  automationsPageSize,
  runsOnlyByHand,
} from './automations.page-data.js';
import type { AutomatedAction } from './automations.presenter.js';
import type { createAutomationsService } from './automations.service.js';
import { pageCount, pageNumber, pageSlice } from '../console/paging.js';

// The admin console's automation pages (the JSON API is automations.routes.ts). Plain HTML forms
// post here with the session's CSRF token in `_csrf`; every write goes through the automations
// service, so its rules and audit records are the API's. After a write the browser is
// redirected (post, redirect, get) to a page that shows what happened once.

const tags = ['pages'];
const listQuery = z.object({
  page: pageNumber,
});
const idParams = z.object({ id: z.string() });
/** The form's fields as the browser sends them (see automations.form.ts); a checkbox that is not ticked is not sent. */
const automationForm = z.record(z.string().max(200), z.string().max(10_000));
const runForm = z.object({ licenseKey: z.string().max(200).optional() });
const emptyForm = z.object({});
/** How many runs an automation's page lists. */
const shownRuns = 20;

const pageResponses = {
  200: { description: 'The page', contentType: 'text/html' },
  303: { description: 'Not signed in or two-factor pending: to `/`' },
  403: { description: 'Not an admin', contentType: 'text/html' },
};
const withMissing = { ...pageResponses, 404: { description: 'No such automation', contentType: 'text/html' } };
const writeResponses = {
  303: { description: 'Done (or not signed in): to the page that shows the message' },
  400: { description: 'The form with what is wrong', contentType: 'text/html' },
  403: { description: 'Not an admin, or no valid CSRF token', contentType: 'text/html' },
  404: { description: 'No such automation', contentType: 'text/html' },
};

type Service = ReturnType<typeof createAutomationsService>;

export function automationPages(deps: {
  service: Service;
  products: () => Promise<Array<{ id: string; name: string }>>;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  auditFailure: AuditFailure;
}): AnyRoute[] {
  const { service } = deps;
  const failed = (req: Request, action: 'create' | 'update' | 'delete', resourceId: string | null, error: unknown) =>
    deps.auditFailure(req, { action, resourceType: 'system', resourceId }, error);
  const { writeThenRedirect } = consoleWrites(deps.auditFailure);
  const notFound = (res: Response, username: string) =>
    res.status(404).render('errors/not-found', notFoundData(username));

  async function renderForm(
    req: Request,
    res: Response,
    username: string,
    form: AutomationFormState,
    editing?: AutomatedAction,
    status = 200,
  ) {
    res.status(status).render(
      'automations/form',
      automationFormData(username, form, {
        csrfToken: deps.csrfToken(req),
        products: await deps.products(),
        editing,
      }),
    );
  }

  /** Runs a write from the automation's page and goes back to it with the outcome; a missing automation is the 404 page. */
  const act = (req: Request, res: Response, id: string, write: () => Promise<FlashMessage>) =>
    writeThenRedirect(req, res, {
      write: async () => ({ to: automationHref(id), message: await write() }),
      audit: { action: 'update', resourceType: 'system', resourceId: id },
      back: automationHref(id),
      say: errorSentence,
    });

  return [
    defineRoute({
      method: 'get',
      path: '/automations',
      summary: 'The automations page',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      query: listQuery,
      description:
        'Admins: the automated actions, 20 to a `page` (past the end: 303 to the last one), each with its trigger, action, state and latest run.',
      responses: pageResponses,
      handler: async ({ query, req, res }) => {
        const username = consoleAdminName(req);
        const list = await service.page(pageSlice(query.page, automationsPageSize));
        // A page past the end (the list shrank, or a typed address) goes to the last page.
        const last = pageCount(list.total, automationsPageSize);
        if (query.page > last) return res.redirect(303, last > 1 ? `/automations?page=${last}` : '/automations');
        res.render('automations/list', automationsListData(username, list, query.page, takeFlash(req)));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/automations/new',
      summary: 'The new-automation form',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      description: 'Admins: the form, with each trigger and each action explained.',
      responses: pageResponses,
      handler: async ({ req, res }) => {
        const username = consoleAdminName(req);
        await renderForm(req, res, username, emptyAutomationForm());
      },
    }),
    defineRoute({
      method: 'post',
      path: '/automations',
      summary: 'Create an automation (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      body: automationForm,
      responses: writeResponses,
      // Refused: the form again, saying why (audited).
      refused: {
        when: (error) => error.status === 400,
        render: async (error, { body, req, res }) => {
          await failed(req, 'create', null, error);
          await renderForm(
            req,
            res,
            consoleAdminName(req),
            { values: body, errors: [errorSentence(error)] },
            undefined,
            400,
          );
        },
      },
      handler: async ({ body, req, res }) => {
        const username = consoleAdminName(req);
        const values: FormValues = body;
        const parsed = automationInputOf(values);
        if (parsed.errors) {
          await failed(req, 'create', null, appError('VALIDATION_FAILED'));
          return renderForm(req, res, username, { values, errors: parsed.errors }, undefined, 400);
        }
        const action = await service.create(actorOf(req), parsed.data);
        await redirectWithFlash(req, res, automationHref(action._id), {
          type: 'success',
          text: `Automation “${action.name}” created.`,
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/automations/:id',
      summary: "An automation's page",
      tags,
      guard: deps.adminPage,
      answer: 'page',
      params: idParams,
      description:
        'Admins: its settings, "Run now", enable or disable, delete, and its latest runs with what each step did.',
      responses: withMissing,
      handler: async ({ params, req, res }) => {
        const username = consoleAdminName(req);
        const action = await service.get(params.id);
        const runs = await service.runs(action._id, shownRuns);
        res.render(
          'automations/detail',
          automationDetailData(username, action, runs, { messages: takeFlash(req), csrfToken: deps.csrfToken(req) }),
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: '/automations/:id/edit',
      summary: 'The form to edit an automation',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      params: idParams,
      responses: withMissing,
      handler: async ({ params, req, res }) => {
        const username = consoleAdminName(req);
        const action = await service.get(params.id);
        await renderForm(req, res, username, automationFormOf(action), action);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/automations/:id',
      summary: 'Update an automation (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: automationForm,
      responses: writeResponses,
      // A missing automation is the 404 page; a refused one the form again, saying why (both audited).
      refused: {
        when: (error) => error.status === 404 || error.status === 400,
        render: async (error, { params, body, req, res }) => {
          await failed(req, 'update', params.id, error);
          if (error.status === 404) return notFound(res, consoleAdminName(req));
          const existing = await service.get(params.id);
          await renderForm(
            req,
            res,
            consoleAdminName(req),
            { values: body, errors: [errorSentence(error)] },
            existing,
            400,
          );
        },
      },
      handler: async ({ params, body, req, res }) => {
        const username = consoleAdminName(req);
        const existing = await service.get(params.id);
        const values: FormValues = body;
        const parsed = automationInputOf(values, existing);
        if (parsed.errors) {
          await failed(req, 'update', params.id, appError('VALIDATION_FAILED'));
          return renderForm(req, res, username, { values, errors: parsed.errors }, existing, 400);
        }
        const action = await service.update(actorOf(req), params.id, parsed.data);
        await redirectWithFlash(req, res, automationHref(action._id), {
          type: 'success',
          text: `Automation “${action.name}” saved.`,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/automations/:id/run',
      summary: 'Run an automation now (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: runForm,
      description:
        'Every step is carried out for real, as `POST /api/automated-actions/:id/execute`; `licenseKey` is the license the run is about.',
      responses: writeResponses,
      handler: async ({ params, body, req, res }) => {
        const licenseKey = body.licenseKey?.trim() ?? '';
        await act(req, res, params.id, async () => {
          const action = await service.get(params.id);
          if (!licenseKey && runNeedsLicense(action))
            throw appError('VALIDATION_FAILED', { message: 'Give the key of the license to run it on' });
          // A failed step is part of the run's outcome (recorded and audited by the service), not a refused write.
          const result = await service.execute(actorOf(req), params.id, licenseKey ? { licenseKey } : {});
          if (result.success)
            return {
              type: 'success',
              text: `Ran “${action.name}”: ${result.results.map((step) => step.message).join('; ')}.`,
            };
          const failures = result.results.filter((step) => !step.success);
          return {
            type: 'error',
            text: `Ran “${action.name}”: ${failures.length} of ${result.results.length} step${result.results.length === 1 ? '' : 's'} failed (${failures.map((step) => step.message).join('; ')}).`,
          };
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/automations/:id/enable',
      summary: 'Enable an automation (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: emptyForm,
      responses: writeResponses,
      handler: async ({ params, req, res }) => {
        await act(req, res, params.id, async () => {
          const action = await service.update(actorOf(req), params.id, { enabled: true });
          return {
            type: 'success',
            text: runsOnlyByHand(action)
              ? `Automation “${action.name}” enabled: it runs when you use “Run now”.`
              : `Automation “${action.name}” enabled: it runs when its trigger happens.`,
          };
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/automations/:id/disable',
      summary: 'Disable an automation (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: emptyForm,
      responses: writeResponses,
      handler: async ({ params, req, res }) => {
        await act(req, res, params.id, async () => {
          const action = await service.update(actorOf(req), params.id, { enabled: false });
          return {
            type: 'success',
            text: runsOnlyByHand(action)
              ? `Automation “${action.name}” disabled.`
              : `Automation “${action.name}” disabled: it no longer runs by itself.`,
          };
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/automations/:id/delete',
      summary: 'Delete an automation (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      responses: writeResponses,
      handler: async ({ params, req, res }) => {
        await writeThenRedirect(req, res, {
          write: async () => {
            const { name } = await service.get(params.id);
            await service.remove(actorOf(req), params.id);
            return { to: '/automations', message: { type: 'success', text: `Automation “${name}” deleted.` } };
          },
          audit: { action: 'delete', resourceType: 'system', resourceId: params.id },
          // Only a missing automation is answered here (the 404 page).
          when: (error) => error.status === 404,
          back: automationHref(params.id),
        });
      },
    }),
  ];
}
