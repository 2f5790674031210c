import type { Request, Response } from 'express';
import { z } from 'zod';
import { appError, defineRoute, isHttpError, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminPage, formErrors, redirectWithFlash, takeFlash, type AuditFailure } from '../dashboard/admin-pages.js';
import { notFoundData } from '../dashboard/dashboard.page-data.js';
import {
  customerFormOf, customerHref, customerPageData, customersPageData, customersPageSize, emptyCustomerForm, type CustomerFormState,
} from './customers.page-data.js';
import { createCustomerSchema, updateCustomerSchema } from './customers.schema.js';
import type { createCustomersService } from './customers.service.js';

// The admin console's customer pages (the JSON API is customers.routes.ts). Plain HTML forms
// post here with the session's CSRF token in `_csrf`; every write goes through the customers
// service, so its rules and audit records are the API's. After a write the browser is
// redirected (post, redirect, get) to a page that shows what happened once.

const tags = ['pages'];
const listQuery = z.object({
  q: z.string().trim().max(200).optional().catch(undefined).transform((value) => value ?? ''),
  page: z.coerce.number().int().min(1).max(1_000_000).optional().catch(undefined).transform((value) => value ?? 1),
});
const idParams = z.object({ id: z.string() });
/** The form's fields as the browser sends them. */
const customerForm = z.object({
  name: z.string().max(10_000).optional(),
  email: z.string().max(10_000).optional(),
  userId: z.string().max(10_000).optional(),
});
type CustomerForm = z.infer<typeof customerForm>;

const labels = { name: 'Name', email: 'Email', userId: 'Provider user id' };
const messages = {
  name: 'Name: enter 1 to 200 characters.',
  email: 'Email: enter an email address, like name@example.com.',
  userId: 'Provider user id: at most 200 characters.',
};

const stateOf = (form: CustomerForm, errors: string[]): CustomerFormState => ({
  values: { name: form.name ?? '', email: form.email ?? '', userId: form.userId ?? '' },
  errors,
});
const blankToUndefined = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

const pageResponses = {
  200: { description: 'The page', contentType: 'text/html' },
  303: { description: 'Not signed in or two-factor pending: to `/`' },
  403: { description: 'Not an admin', contentType: 'text/html' },
};
const writeResponses = {
  303: { description: 'Done (or not signed in): to the page that shows the message' },
  400: { description: 'The form with what is wrong', contentType: 'text/html' },
  403: { description: 'Not an admin, or no valid CSRF token', contentType: 'text/html' },
  404: { description: 'No such customer', contentType: 'text/html' },
  409: { description: 'The form, saying the provider user id is taken', contentType: 'text/html' },
};

type Service = ReturnType<typeof createCustomersService>;

export function customerPages(deps: { service: Service; public: Guard; admin: Guard; csrfToken: (req: Request) => string; auditFailure: AuditFailure }): AnyRoute[] {
  const { service } = deps;
  const failed = (req: Request, action: 'create' | 'update' | 'delete', resourceId: string | null, error: unknown) =>
    deps.auditFailure(req, { action, resourceType: 'customer', resourceId }, error);
  const notFound = (res: Response, username: string) => res.status(404).render('errors/not-found', notFoundData(username));

  async function renderList(req: Request, res: Response, username: string, query: { q: string; page: number }, form: CustomerFormState, status = 200) {
    const { customers, total } = await service.list({ search: query.q || undefined, limit: customersPageSize, skip: (query.page - 1) * customersPageSize });
    res.status(status).render('customers/list', customersPageData(username, { customers, total, q: query.q, page: query.page },
      { form, messages: takeFlash(req), csrfToken: deps.csrfToken(req) }));
  }

  async function renderCustomer(req: Request, res: Response, username: string, id: string, form?: CustomerFormState, status = 200) {
    try {
      const customer = await service.get(id);
      res.status(status).render('customers/detail', customerPageData(username, customer,
        { form: form ?? customerFormOf(customer), messages: takeFlash(req), csrfToken: deps.csrfToken(req) }));
    } catch (error) {
      if (isHttpError(error) && error.status === 404) return notFound(res, username);
      throw error;
    }
  }

  return [
    defineRoute({
      method: 'get', path: '/customers', summary: 'The customers page', tags, guard: deps.public, query: listQuery,
      description: 'Admins: customers whose name or email contains `q` (or whose provider user id is `q`), 20 to a `page`, with their license counts, and the form for a new one.',
      responses: pageResponses,
      handler: async ({ query, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (username) await renderList(req, res, username, query, emptyCustomerForm());
      },
    }),
    defineRoute({
      method: 'post', path: '/customers', summary: 'Create a customer (form)', tags, guard: deps.public, body: customerForm,
      responses: writeResponses,
      handler: async ({ body, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (!username) return;
        const parsed = createCustomerSchema.safeParse({ name: body.name ?? '', email: (body.email ?? '').trim(), userId: blankToUndefined(body.userId) });
        if (!parsed.success) {
          await failed(req, 'create', null, appError('VALIDATION_FAILED'));
          return renderList(req, res, username, { q: '', page: 1 }, stateOf(body, formErrors(parsed.error, labels, messages)), 400);
        }
        try {
          const customer = await service.create(actorOf(req), parsed.data);
          return redirectWithFlash(req, res, customerHref(customer._id), { type: 'success', text: `Customer “${customer.name}” created.` });
        } catch (error) {
          if (isHttpError(error) && (error.status === 400 || error.status === 409)) {
            await failed(req, 'create', null, error);
            return renderList(req, res, username, { q: '', page: 1 }, stateOf(body, [error.message]), error.status);
          }
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'get', path: '/customers/:id', summary: 'A customer\'s page', tags, guard: deps.public, params: idParams,
      description: 'Admins: their license count, the form to edit them and the button to delete them.',
      responses: { ...pageResponses, 404: { description: 'No such customer', contentType: 'text/html' } },
      handler: async ({ params, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (username) await renderCustomer(req, res, username, params.id);
      },
    }),
    defineRoute({
      method: 'post', path: '/customers/:id', summary: 'Update a customer (form)', tags, guard: deps.public, params: idParams, body: customerForm,
      description: 'An empty provider user id unlinks the customer from their sign-in.',
      responses: writeResponses,
      handler: async ({ params, body, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (!username) return;
        const parsed = updateCustomerSchema.safeParse({ name: body.name ?? '', email: (body.email ?? '').trim(), userId: blankToUndefined(body.userId) ?? null });
        if (!parsed.success) {
          await failed(req, 'update', params.id, appError('VALIDATION_FAILED'));
          return renderCustomer(req, res, username, params.id, stateOf(body, formErrors(parsed.error, labels, messages)), 400);
        }
        try {
          const customer = await service.update(actorOf(req), params.id, parsed.data);
          return redirectWithFlash(req, res, customerHref(customer._id), { type: 'success', text: `Customer “${customer.name}” saved.` });
        } catch (error) {
          if (isHttpError(error) && error.status === 404) {
            await failed(req, 'update', params.id, error);
            return notFound(res, username);
          }
          if (isHttpError(error) && (error.status === 400 || error.status === 409)) {
            await failed(req, 'update', params.id, error);
            return renderCustomer(req, res, username, params.id, stateOf(body, [error.message]), error.status);
          }
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'post', path: '/customers/:id/delete', summary: 'Delete a customer (form; their licenses stay)', tags, guard: deps.public, params: idParams,
      responses: writeResponses,
      handler: async ({ params, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (!username) return;
        let name: string;
        try {
          name = (await service.get(params.id)).name;
          await service.remove(actorOf(req), params.id);
        } catch (error) {
          if (isHttpError(error) && error.status === 404) {
            await failed(req, 'delete', params.id, error);
            return notFound(res, username);
          }
          throw error;
        }
        return redirectWithFlash(req, res, '/customers', { type: 'success', text: `Customer “${name}” deleted. Their licenses stay, without a customer.` });
      },
    }),
  ];
}
