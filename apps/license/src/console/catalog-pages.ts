import type { Request, Response } from 'express';
import { z, type ZodType } from 'zod';
import { defineRoute, isHttpError, type AnyRoute, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import type { Actor } from '../common/actor.js';
import { actorOf } from '../common/actor.js';
import { consoleAdminName, formErrors, redirectWithFlash, takeFlash, type FlashMessage } from './admin-pages.js';
import { consoleWrites, type AuditFailure } from './write-kit.js';
import { notFoundData } from './layout.js';
import { pageNumber, pageSlice } from './paging.js';
import { say } from './language.js';

// The admin console's pages for a catalogue resource (products, customers): a searchable list
// with the form for a new one, a page per item with its edit form and a delete button. Plain
// HTML forms post here with the session's CSRF token in `_csrf`; every write goes through the
// resource's service, so its rules and audit records are the API's. After a write the browser
// is redirected (post, redirect, get) to a page that shows what happened once. Each resource
// says only what is its own: its fields, texts, views and service.

const tags = ['pages'];
const listQuery = z.object({
  q: z
    .string()
    .trim()
    .max(200)
    .optional()
    .catch(undefined)
    .transform((value) => value ?? ''),
  page: pageNumber,
  /** Of one product (policies); resources without products ignore it. */
  product: z.uuid().optional().catch(undefined),
});
const idParams = z.object({ id: z.string() });

/** A form as the page shows it: the values typed and what is wrong with them. */
export interface CatalogFormState {
  values: object;
  errors: string[];
}

/** What the pages extend every view's data with. */
export interface CatalogPageExtras<State extends CatalogFormState> {
  form: State;
  messages: FlashMessage[];
  csrfToken: string;
  /** What the resource's `options` read for its forms (the choices of a select), or {}. */
  options: Record<string, unknown>;
}

interface Named {
  _id: string;
  name: string;
}

/** What one resource gives the builder. */
export interface CatalogResource<
  Item extends Named,
  Form extends Record<string, unknown>,
  State extends CatalogFormState,
  Create,
  Update,
> {
  /** The audit log's resource type, the word in messages ("Product") and the base path ("/products"). */
  resourceType: 'product' | 'customer' | 'policy' | 'entitlement';
  noun: string;
  basePath: string;
  views: { list: string; detail: string };
  pageSize: number;
  /** The form's fields as the browser sends them (strings; a checkbox that is not ticked is absent). */
  form: ZodType<Form>;
  /** Field labels and per-field texts for readable errors (see formErrors). */
  labels: Record<string, string>;
  messages: Record<string, string>;
  emptyForm: () => State;
  /** Reads what the forms choose from (products, entitlements), for every page. */
  options?: () => Promise<Record<string, unknown>>;
  formOf: (item: Item) => State;
  stateOf: (form: Form, errors: string[]) => State;
  /** The form as the service's create and update input, checked with the API's schemas. */
  create: { schema: ZodType<Create>; inputOf: (form: Form) => unknown };
  update: { schema: ZodType<Update>; inputOf: (form: Form) => unknown };
  service: {
    list(query: {
      q?: string;
      limit: number;
      skip: number;
      product?: string;
    }): Promise<{ items: Item[]; total: number }>;
    /** Throws a 404 HTTP error when there is none. */
    get(id: string): Promise<Item>;
    create(actor: Actor, input: Create): Promise<Item>;
    update(actor: Actor, id: string, input: Update): Promise<Item>;
    remove(actor: Actor, id: string): Promise<unknown>;
  };
  listData(
    username: string,
    list: { items: Item[]; total: number; q: string; page: number; product?: string },
    extras: CatalogPageExtras<State>,
  ): object;
  detailData(username: string, item: Item, extras: CatalogPageExtras<State>): object;
  href: (id: string) => string;
  docs: {
    list: string;
    detail: string;
    update?: string;
    deleteSummary: string;
    deleteDescription?: string;
    /** The message key of what the page adds to "… deleted." (locales: catalog.flash.*). */
    deleted?: string;
    /** Statuses the writes may answer beyond the common ones. */
    writeResponses?: Record<number, { description: string; contentType?: string }>;
  };
}

const pageResponses = {
  200: { description: 'The page', contentType: 'text/html' },
  303: { description: 'Not signed in or two-factor pending: to `/`' },
  403: { description: 'Not an admin', contentType: 'text/html' },
};

export function catalogPages<
  Item extends Named,
  Form extends Record<string, unknown>,
  State extends CatalogFormState,
  Create,
  Update,
>(
  resource: CatalogResource<Item, Form, State, Create, Update>,
  deps: { adminPage: Guard; csrfToken: (req: Request) => string; auditFailure: AuditFailure },
): AnyRoute[] {
  const { service, noun, basePath } = resource;
  const { writeThenRedirect } = consoleWrites(deps.auditFailure);
  const lowerNoun = noun.toLowerCase();
  const writeResponses = {
    303: { description: 'Done (or not signed in): to the page that shows the message' },
    400: { description: 'The form with what is wrong', contentType: 'text/html' },
    403: { description: 'Not an admin, or no valid CSRF token', contentType: 'text/html' },
    404: { description: `No such ${lowerNoun}`, contentType: 'text/html' },
    ...resource.docs.writeResponses,
  };
  const failed = (req: Request, action: 'create' | 'update' | 'delete', resourceId: string | null, error: unknown) =>
    deps.auditFailure(req, { action, resourceType: resource.resourceType, resourceId }, error);
  const notFound = (res: Response, username: string) =>
    res.status(404).render('errors/not-found', notFoundData(username));
  const extras = async (req: Request, form: State): Promise<CatalogPageExtras<State>> => ({
    form,
    messages: takeFlash(req),
    csrfToken: deps.csrfToken(req),
    options: (await resource.options?.()) ?? {},
  });
  /** A refusal the form shows (bad input, a taken value) rather than an error page. */
  const shownOnForm = (error: unknown) => isHttpError(error) && (error.status === 400 || error.status === 409);

  async function renderList(
    req: Request,
    res: Response,
    username: string,
    query: { q: string; page: number; product?: string },
    form: State,
    status = 200,
  ) {
    const { items, total } = await service.list({
      q: query.q || undefined,
      ...pageSlice(query.page, resource.pageSize),
      product: query.product,
    });
    res
      .status(status)
      .render(
        resource.views.list,
        resource.listData(
          username,
          { items, total, q: query.q, page: query.page, product: query.product },
          await extras(req, form),
        ),
      );
  }

  async function renderItem(req: Request, res: Response, id: string, form?: State, status = 200) {
    const item = await service.get(id);
    const username = consoleAdminName(req);
    res
      .status(status)
      .render(
        resource.views.detail,
        resource.detailData(username, item, await extras(req, form ?? resource.formOf(item))),
      );
  }

  return [
    defineRoute({
      method: 'get',
      path: basePath,
      summary: `The ${lowerNoun}s page`,
      tags,
      guard: deps.adminPage,
      answer: 'page',
      query: listQuery,
      description: resource.docs.list,
      responses: pageResponses,
      handler: async ({ query, req, res }) => {
        const username = consoleAdminName(req);
        await renderList(req, res, username, query, resource.emptyForm());
      },
    }),
    defineRoute({
      method: 'post',
      path: basePath,
      summary: `Create a ${lowerNoun} (form)`,
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      body: resource.form,
      responses: writeResponses,
      // A refusal the form shows (bad input, a taken value): the list with the form again.
      refused: {
        when: shownOnForm,
        render: async (error, { body, req, res }) => {
          await failed(req, 'create', null, error);
          await renderList(
            req,
            res,
            consoleAdminName(req),
            { q: '', page: 1 },
            resource.stateOf(body, [error.message]),
            error.status,
          );
        },
      },
      handler: async ({ body, req, res }) => {
        const username = consoleAdminName(req);
        const parsed = resource.create.schema.safeParse(resource.create.inputOf(body));
        if (!parsed.success) {
          await failed(req, 'create', null, appError('VALIDATION_FAILED'));
          return renderList(
            req,
            res,
            username,
            { q: '', page: 1 },
            resource.stateOf(body, formErrors(parsed.error, resource.labels, resource.messages)),
            400,
          );
        }
        const item = await service.create(actorOf(req), parsed.data);
        await redirectWithFlash(req, res, resource.href(item._id), {
          type: 'success',
          text: say(`catalog.flash.${lowerNoun}.created`, { name: item.name }),
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: `${basePath}/:id`,
      summary: `A ${lowerNoun}'s page`,
      tags,
      guard: deps.adminPage,
      answer: 'page',
      params: idParams,
      description: resource.docs.detail,
      responses: { ...pageResponses, 404: { description: `No such ${lowerNoun}`, contentType: 'text/html' } },
      handler: async ({ params, req, res }) => {
        await renderItem(req, res, params.id);
      },
    }),
    defineRoute({
      method: 'post',
      path: `${basePath}/:id`,
      summary: `Update a ${lowerNoun} (form)`,
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      body: resource.form,
      ...(resource.docs.update ? { description: resource.docs.update } : {}),
      responses: writeResponses,
      // A refusal the form shows: the page with the form again; a missing one is the not-found page.
      refused: {
        when: (error) => error.status === 404 || shownOnForm(error),
        render: async (error, { params, body, req, res }) => {
          await failed(req, 'update', params.id, error);
          if (error.status === 404) return notFound(res, consoleAdminName(req));
          await renderItem(req, res, params.id, resource.stateOf(body, [error.message]), error.status);
        },
      },
      handler: async ({ params, body, req, res }) => {
        const parsed = resource.update.schema.safeParse(resource.update.inputOf(body));
        if (!parsed.success) {
          await failed(req, 'update', params.id, appError('VALIDATION_FAILED'));
          return renderItem(
            req,
            res,
            params.id,
            resource.stateOf(body, formErrors(parsed.error, resource.labels, resource.messages)),
            400,
          );
        }
        const item = await service.update(actorOf(req), params.id, parsed.data);
        await redirectWithFlash(req, res, resource.href(item._id), {
          type: 'success',
          text: say(`catalog.flash.${lowerNoun}.saved`, { name: item.name }),
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: `${basePath}/:id/delete`,
      summary: resource.docs.deleteSummary,
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: idParams,
      ...(resource.docs.deleteDescription ? { description: resource.docs.deleteDescription } : {}),
      responses: writeResponses,
      handler: async ({ params, req, res }) => {
        await writeThenRedirect(req, res, {
          write: async () => {
            const { name } = await service.get(params.id);
            await service.remove(actorOf(req), params.id);
            const deleted = say(`catalog.flash.${lowerNoun}.deleted`, { name });
            return {
              to: basePath,
              message: {
                type: 'success',
                text: resource.docs.deleted ? `${deleted} ${say(resource.docs.deleted)}` : deleted,
              },
            };
          },
          audit: { action: 'delete', resourceType: resource.resourceType, resourceId: params.id },
          // Something depends on it (a product with licenses): its page says why it stays.
          back: resource.href(params.id),
          say: (error) => `${error.message}.`,
        });
      },
    }),
  ];
}
