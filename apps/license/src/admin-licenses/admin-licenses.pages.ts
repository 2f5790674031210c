import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import type pg from 'pg';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { AuditAction } from '../audit/audit.table.js';
import { actorOf } from '../common/actor.js';
import { adminLayout } from '../console/layout.js';
import { consoleAdminName } from '../console/admin-pages.js';
import { localNumber, say } from '../console/language.js';
import { redirectWithFlash, takeFlash } from '../console/flash.js';
import { consoleWrites } from '../console/write-kit.js';
import { createLicenseSchema, updateLicenseSchema } from '../licenses/licenses.schema.js';
import type { LicensesService } from '../licenses/licenses.service.js';
import type { MachinesService } from '../machines/machines.service.js';
import type { OfflineFilesService } from '../machines/offline-files.service.js';
import { offlineResultData } from '../machines/offline-activation.page-data.js';
import { licenseTypes } from '../licenses/licenses.table.js';
import { checkedCodes } from '../policies/policies.pages.js';
import {
  licenseDetailData,
  licenseHref,
  licenseListData,
  licenseStates,
  listAddress,
  newLicenseData,
  stateFlags,
  type ListFilters,
} from './admin-licenses.page-data.js';
import type { AdminLicensesService } from './admin-licenses.service.js';
import { pageCount, pageNumber, pageSlice } from '../console/paging.js';

// The admin console's license pages. Forms post here (session + CSRF token in `_csrf`), the
// handlers call the licenses service, so rules and audit entries are those of the API, and
// answer with a redirect back and a one-time message (post, redirect, get).

const pageSize = 25;
const tags = ['pages'];
const maxReason = 1000;

/** Filters read from the address; what cannot be read is dropped instead of failing the page. */
const listQuery = z.object({
  product: z.uuid().optional().catch(undefined),
  customer: z.uuid().optional().catch(undefined),
  type: z.enum(licenseTypes).optional().catch(undefined),
  state: z.enum(licenseStates).optional().catch(undefined),
  // An empty field (the form sends every field) means no filter, not 0 days.
  expiresWithinDays: z
    .preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().min(0).max(36_500).optional())
    .catch(undefined),
  search: z
    .string()
    .trim()
    .max(200)
    .optional()
    .catch(undefined)
    .transform((value) => value || undefined),
  page: pageNumber,
});
const idParams = z.object({ id: z.string() });
const reasonForm = z.object({ reason: z.string().optional() });
const emptyForm = z.object({});
const field = z.string().max(200).optional();
const newLicenseForm = z.object({
  product: field,
  customer: field,
  licenseType: field,
  expiresAt: field,
  ipLimit: field,
  hwidLimit: field,
  heartbeatSeconds: field,
  graceDays: field,
  expirationStrategy: field,
  borrowHours: field,
  sharingAddressLimit: field,
  credits: field,
  policyId: field,
  entitlements: checkedCodes,
});
const grantsForm = z.object({ policyId: field, entitlements: checkedCodes });
const offlineForm = z.object({ requestCode: z.string().max(10_000).optional() });
const seatsForm = z.object({ heartbeatSeconds: field, borrowHours: field });
const sharingForm = z.object({ sharingAddressLimit: field });
const expiryForm = z.object({ graceDays: field, expirationStrategy: field });
const machineParams = z.object({ id: z.string(), machineId: z.string() });
/** Said next to "Check these fields" when the floating-seats field is the one to correct. */
const heartbeatProblem = 'Floating seats: a whole number of seconds from 10 to 86,400, or empty.';
const borrowProblem = 'Borrowing: a whole number of hours from 0 to 720.';
const sharingProblem = 'Sharing limit: a whole number of addresses from 1 to 1,000,000, or empty.';
const expiryProblem = 'Grace period: a whole number of days from 0 to 90; after expiry: revoke or maintain.';

const blankToUndefined = (value: string | undefined) =>
  value === undefined || value.trim() === '' ? undefined : value.trim();
/** A form's whole number; anything else is NaN, which the schema refuses. */
const whole = (value: string | undefined) => {
  const text = blankToUndefined(value);
  return text === undefined ? undefined : /^\d+$/.test(text) ? Number(text) : Number.NaN;
};

const redirected = {
  303: { description: 'Back to the page, with a message' },
  403: { description: 'Not an admin, or no valid CSRF token', contentType: 'text/html' },
  404: { description: 'No such license', contentType: 'text/html' },
};
const pageAnswers = {
  200: { description: 'The page', contentType: 'text/html' },
  303: { description: 'Not signed in, or two-factor pending: to `/`' },
  403: { description: 'Signed in, not an admin', contentType: 'text/html' },
};

export function adminLicensesPages(deps: {
  pool: pg.Pool;
  service: AdminLicensesService;
  licenses: LicensesService;
  machines: Pick<MachinesService, 'list' | 'remove'>;
  offline: Pick<OfflineFilesService, 'activateOffline'>;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
}) {
  const { service, licenses } = deps;
  const { writeThenRedirect } = consoleWrites((req, target, error) => recordFailedWrite(deps.pool, req, target, error));

  /**
   * Runs a write, then redirects to the license's page with its outcome as the message
   * (`success` may be read after the write). A refusal is audited and shown there; a missing
   * license goes on to the not-found page.
   */
  const act = (
    req: Request,
    res: Response,
    id: string,
    action: AuditAction,
    success: string | (() => string),
    write: () => Promise<unknown>,
  ) =>
    writeThenRedirect(req, res, {
      write: async () => {
        await write();
        return {
          to: licenseHref(id),
          message: { type: 'success', text: typeof success === 'string' ? success : success() },
        };
      },
      // Refused writes are audited as the API's are (the error middleware never sees these).
      audit: { action, resourceType: 'license', resourceId: id },
      back: licenseHref(id),
      say: (error) => error.message,
    });

  /** A reason the form requires: blank or too long comes back as a message. */
  function reasonOf(
    req: Request,
    res: Response,
    id: string,
    reason: string | undefined,
    what: string,
  ): string | undefined {
    const text = reason?.trim() ?? '';
    if (text && text.length <= maxReason) return text;
    void redirectWithFlash(req, res, licenseHref(id), {
      type: 'error',
      text: text
        ? say('licenses.flash.reasonTooLong', { max: maxReason })
        : say(what === 'suspend' ? 'licenses.flash.reasonToSuspend' : 'licenses.flash.reasonToRevoke'),
    });
    return undefined;
  }

  /** A license's key, read for the services that name a license by key (rotate, clear). */
  async function keyOf(id: string): Promise<string> {
    return (await licenses.detail(id)).key;
  }

  /** The offline activation page of a license (its key read here: a missing license is a 404), with the code as typed. */
  async function offlinePage(req: Request, id: string, body: z.infer<typeof offlineForm>) {
    const { key } = await licenses.detail(id);
    return {
      ...adminLayout(`${say('common.offlineActivation')} · ${key}`, consoleAdminName(req), 'licenses'),
      key,
      back: licenseHref(id),
      form: {
        action: `${licenseHref(id)}/machines/offline`,
        csrfToken: deps.csrfToken(req),
        value: (body.requestCode ?? '').replace(/\s+/g, ''),
      },
    };
  }

  const renderNew = async (
    req: Request,
    res: Response,
    username: string,
    values: Record<string, string>,
    errors: Array<{ type: 'error'; text: string; fields?: string[] }>,
    checked: string[] = [],
  ) => {
    const choices = await service.formChoices();
    res.render('admin-licenses/new', newLicenseData(username, choices, deps.csrfToken(req), values, errors, checked));
  };

  /** The new-license form's fields as typed, to show them again. */
  const formValues = (body: z.infer<typeof newLicenseForm>): Record<string, string> => {
    const { entitlements: _checked, ...fields } = body;
    return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, value ?? '']));
  };
  const formUsername = (req: Request) => req.user?.username ?? req.admin?.userId ?? '';

  const routes: AnyRoute[] = [
    defineRoute({
      method: 'get',
      path: '/licenses',
      summary: "The admin console's license list",
      tags,
      guard: deps.adminPage,
      answer: 'page',
      query: listQuery,
      description:
        'Filters: `product`, `customer` (ids), `type`, `state` (active, suspended, revoked, expired, inactive), `expiresWithinDays`, `search` (in the key); `page`.',
      responses: {
        ...pageAnswers,
        302: { description: 'Not signed in, or two-factor pending: to `/`; a page past the end: to the last page' },
      },
      handler: async ({ query, req, res }) => {
        const username = consoleAdminName(req);
        const filters: ListFilters = query;
        const list = await service.listPage({
          product: query.product,
          customer: query.customer,
          licenseType: query.type,
          search: query.search,
          expiresWithinDays: query.expiresWithinDays,
          active: undefined,
          suspended: undefined,
          revoked: undefined,
          expired: undefined,
          ...stateFlags(query.state),
          ...pageSlice(query.page, pageSize),
        });
        // A page past the end (the list shrank, or a typed address) goes to the last page.
        const last = pageCount(list.total, pageSize);
        if (query.page > last) return res.redirect(listAddress(filters, last));
        res.render('admin-licenses/list', licenseListData(username, list, filters, pageSize, takeFlash(req)));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/licenses/new',
      summary: 'The new-license form',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      responses: pageAnswers,
      handler: async ({ req, res }) => {
        const username = consoleAdminName(req);
        await renderNew(
          req,
          res,
          username,
          {},
          takeFlash(req)
            .filter((message) => message.type === 'error')
            .map((message) => ({ type: 'error' as const, text: message.text })),
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/licenses',
      summary: 'Create a license from the form',
      tags,
      guard: deps.adminPage,
      body: newLicenseForm,
      audit: { action: 'create', resource: 'license' },
      answer: 'redirect',
      // A refused license: the form again, with the refusal and what to correct.
      refused: {
        render: (error, { body, req, res }) => {
          const details = error.details ? ` ${Object.values(error.details).join(' ')}` : '';
          res.status(400);
          return renderNew(
            req,
            res,
            formUsername(req),
            formValues(body),
            [{ type: 'error', text: `${error.message}.${details}`, fields: Object.keys(error.details ?? {}) }],
            body.entitlements,
          );
        },
      },
      responses: {
        ...redirected,
        400: { description: 'The form again, with what to correct', contentType: 'text/html' },
      },
      handler: async ({ body, req, res }) => {
        const expires = blankToUndefined(body.expiresAt);
        const policyId = blankToUndefined(body.policyId);
        const parsed = createLicenseSchema.safeParse({
          // A policy's licenses are of its product: the product select only counts without one.
          product: policyId ? undefined : blankToUndefined(body.product),
          policyId,
          entitlements: body.entitlements.length ? body.entitlements : undefined,
          customer: blankToUndefined(body.customer),
          licenseType: blankToUndefined(body.licenseType),
          // The form's date is a UTC calendar day: the license runs until the end of it.
          expiresAt:
            expires === undefined
              ? undefined
              : /^\d{4}-\d{2}-\d{2}$/.test(expires)
                ? `${expires}T23:59:59.000Z`
                : expires,
          ipLimit: whole(body.ipLimit),
          hwidLimit: whole(body.hwidLimit),
          heartbeatSeconds: whole(body.heartbeatSeconds),
          graceDays: whole(body.graceDays),
          expirationStrategy: blankToUndefined(body.expirationStrategy),
          borrowHours: whole(body.borrowHours),
          sharingAddressLimit: whole(body.sharingAddressLimit),
          credits: whole(body.credits),
        });
        if (!parsed.success) {
          const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? 'form')))];
          res.status(400);
          const extra = [
            ...(fields.includes('heartbeatSeconds') ? [` ${heartbeatProblem}`] : []),
            ...(fields.some((name) => name === 'graceDays' || name === 'expirationStrategy')
              ? [` ${expiryProblem}`]
              : []),
            ...(fields.includes('borrowHours') ? [` ${borrowProblem}`] : []),
            ...(fields.includes('sharingAddressLimit') ? [` ${sharingProblem}`] : []),
          ].join('');
          return renderNew(
            req,
            res,
            formUsername(req),
            formValues(body),
            [{ type: 'error', text: `Check these fields: ${fields.join(', ')}.${extra}`, fields }],
            body.entitlements,
          );
        }
        const license = await licenses.create(actorOf(req), parsed.data);
        await redirectWithFlash(req, res, licenseHref(license._id), {
          type: 'success',
          text: say('licenses.flash.created', { key: license.key }),
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/licenses/:id',
      summary: "The admin console's page of one license",
      tags,
      guard: deps.adminPage,
      params: idParams,
      description:
        'Every field, IPs and hardware ids, validations per day (last 30 days), recent usage records, the audit trail, and the action forms.',
      answer: 'page',
      responses: { ...pageAnswers, 404: { description: 'No such license', contentType: 'text/html' } },
      handler: async ({ params, req, res }) => {
        const username = consoleAdminName(req);
        const page = await service.detailPage(params.id);
        res.render('admin-licenses/detail', licenseDetailData(username, page, deps.csrfToken(req), takeFlash(req)));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/suspend',
      summary: 'Suspend a license from its page (a reason is required)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: reasonForm,
      audit: { action: 'suspend', resource: 'license' },
      responses: redirected,
      handler: async ({ params, body, req, res }) => {
        const reason = reasonOf(req, res, params.id, body.reason, 'suspend');
        if (reason === undefined) return;
        await act(req, res, params.id, 'suspend', say('licenses.flash.suspended'), () =>
          licenses.suspend(actorOf(req), params.id, reason),
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/reactivate',
      summary: 'Reactivate a license from its page',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: emptyForm,
      audit: { action: 'activate', resource: 'license' },
      responses: redirected,
      handler: ({ params, req, res }) =>
        act(req, res, params.id, 'activate', say('licenses.flash.reactivated'), () =>
          licenses.reactivate(actorOf(req), params.id),
        ),
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/revoke',
      summary: 'Revoke a license from its page (a reason is required)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: reasonForm,
      audit: { action: 'revoke', resource: 'license' },
      responses: redirected,
      handler: async ({ params, body, req, res }) => {
        const reason = reasonOf(req, res, params.id, body.reason, 'revoke');
        if (reason === undefined) return;
        await act(req, res, params.id, 'revoke', say('licenses.flash.revoked'), () =>
          licenses.revoke(actorOf(req), params.id, reason),
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/rotate',
      summary: 'Give a license a new key from its page',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: emptyForm,
      audit: { action: 'update', resource: 'license' },
      responses: redirected,
      handler: ({ params, req, res }) =>
        act(req, res, params.id, 'update', say('licenses.flash.rotated'), async () =>
          licenses.rotate(actorOf(req), await keyOf(params.id)),
        ),
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/clear',
      summary: "Clear a license's recorded IPs and hardware ids from its page",
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: emptyForm,
      audit: { action: 'update', resource: 'license' },
      responses: redirected,
      handler: ({ params, req, res }) =>
        act(req, res, params.id, 'update', say('licenses.flash.cleared'), async () =>
          licenses.clear(actorOf(req), await keyOf(params.id)),
        ),
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/seats',
      summary: "Set a license's floating seats from its page (empty: seats kept until released)",
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: seatsForm,
      audit: { action: 'update', resource: 'license' },
      responses: redirected,
      handler: async ({ params, body, req, res }) => {
        const heartbeatSeconds = whole(body.heartbeatSeconds) ?? null;
        // An emptied borrowing field lends nothing (0), as a new license without one.
        const borrowHours = whole(body.borrowHours) ?? 0;
        const parsed = updateLicenseSchema.safeParse({ heartbeatSeconds, borrowHours });
        if (!parsed.success) {
          const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
          const problems = fields.map((name) => (name === 'borrowHours' ? borrowProblem : heartbeatProblem));
          return redirectWithFlash(req, res, licenseHref(params.id), {
            type: 'error',
            text: `Check these fields: ${fields.join(', ')}. ${problems.join(' ')}`,
          });
        }
        const borrowing = borrowHours ? ` ${say('licenses.flash.borrowing', { hours: borrowHours })}` : '';
        const saved =
          heartbeatSeconds === null
            ? say('licenses.flash.seatsOff')
            : `${say('licenses.flash.seatsSaved', { seconds: localNumber(heartbeatSeconds) })}${borrowing}`;
        await act(req, res, params.id, 'update', saved, () => licenses.update(actorOf(req), params.id, parsed.data));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/sharing',
      summary: "Set a license's key-sharing limit from its page (empty: its policy's, or none)",
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: sharingForm,
      audit: { action: 'update', resource: 'license' },
      responses: redirected,
      handler: async ({ params, body, req, res }) => {
        const parsed = updateLicenseSchema.safeParse({ sharingAddressLimit: whole(body.sharingAddressLimit) ?? null });
        if (!parsed.success)
          return redirectWithFlash(req, res, licenseHref(params.id), {
            type: 'error',
            text: `Check these fields: sharingAddressLimit. ${sharingProblem}`,
          });
        const limit = parsed.data.sharingAddressLimit;
        const saved =
          limit === null || limit === undefined
            ? "Sharing limit cleared: the policy's applies, if it has one."
            : `Sharing limit saved: more than ${limit.toLocaleString('en-US')} address${limit === 1 ? '' : 'es'} a day flags the license.`;
        await act(req, res, params.id, 'update', saved, () => licenses.update(actorOf(req), params.id, parsed.data));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/expiry',
      summary: "Set a license's grace period and what happens after its expiry, from its page",
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: expiryForm,
      audit: { action: 'update', resource: 'license' },
      responses: redirected,
      handler: async ({ params, body, req, res }) => {
        const parsed = updateLicenseSchema.safeParse({
          graceDays: whole(body.graceDays) ?? 0,
          expirationStrategy: blankToUndefined(body.expirationStrategy) ?? 'revoke',
        });
        if (!parsed.success) {
          const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
          return redirectWithFlash(req, res, licenseHref(params.id), {
            type: 'error',
            text: `Check these fields: ${fields.join(', ')}. ${expiryProblem}`,
          });
        }
        const { graceDays, expirationStrategy } = parsed.data;
        const saved = say('licenses.flash.expirySaved', {
          count: graceDays,
          strategy: say(`licenses.flash.strategy.${expirationStrategy}`),
        });
        await act(req, res, params.id, 'update', saved, () => licenses.update(actorOf(req), params.id, parsed.data));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/entitlements',
      summary: "Set a license's policy and own entitlements from its page",
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: grantsForm,
      audit: { action: 'update', resource: 'license' },
      responses: redirected,
      handler: async ({ params, body, req, res }) => {
        const parsed = updateLicenseSchema.safeParse({
          policyId: blankToUndefined(body.policyId) ?? null,
          entitlements: body.entitlements,
        });
        if (!parsed.success) {
          return redirectWithFlash(req, res, licenseHref(params.id), {
            type: 'error',
            text: 'Check these fields: policy, entitlements.',
          });
        }
        await act(req, res, params.id, 'update', say('licenses.flash.grantsSaved'), () =>
          licenses.update(actorOf(req), params.id, parsed.data),
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/machines/offline',
      summary: 'Activate an air-gapped machine from its request code (form); the page shows its file',
      tags,
      guard: deps.adminPage,
      params: idParams,
      body: offlineForm,
      audit: { action: 'update', resource: 'license' },
      answer: 'page',
      // Refused: the reason beside the form (a license that is not there is the not-found page).
      refused: {
        when: (error) => error.status !== 404,
        render: async (error, { params, body, req, res }) => {
          const page = await offlinePage(req, params.id, body);
          res
            .status(error.status)
            .render('admin-licenses/offline', { ...page, error: `${error.message}.`, result: null });
        },
      },
      description:
        'The same rules as `POST /api/licenses/:id/machines/offline`; the answer is a page with the file as a QR code and a download, or the refusal beside the form.',
      responses: {
        200: { description: 'The file, as a QR code and a download', contentType: 'text/html' },
        400: { description: 'Refused: the reason, and the form again', contentType: 'text/html' },
        403: { description: 'HWID limit exceeded, or the license cannot be used', contentType: 'text/html' },
        404: { description: 'No such license', contentType: 'text/html' },
      },
      handler: async ({ params, body, req, res }) => {
        const page = await offlinePage(req, params.id, body);
        const result = await deps.offline.activateOffline(actorOf(req), { admin: true }, params.id, page.form.value);
        res.set('Cache-Control', 'no-store');
        res.render('admin-licenses/offline', {
          ...page,
          error: null,
          result: await offlineResultData(page.key, result),
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/licenses/:id/machines/:machineId/deactivate',
      summary: "Deactivate a machine from its license's page",
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: machineParams,
      body: emptyForm,
      audit: { action: 'delete', resource: 'license' },
      responses: redirected,
      handler: async ({ params, req, res }) => {
        let label = '';
        await act(
          req,
          res,
          params.id,
          'delete',
          () => `Machine ${label} deactivated.`,
          async () => {
            // The name (or fingerprint) is read first: the message names a machine that is gone by then.
            const machine = (await deps.machines.list(params.id)).find((entry) => entry._id === params.machineId);
            label = machine ? (machine.name ?? machine.fingerprint) : '';
            await deps.machines.remove(actorOf(req), params.id, params.machineId);
          },
        );
      },
    }),
  ];
  return routes;
}
