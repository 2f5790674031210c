import type { Request, Response } from 'express';
import { z } from 'zod';
import { appError, defineRoute, isHttpError, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminPage, formErrors, redirectWithFlash, takeFlash, type AuditFailure } from '../dashboard/admin-pages.js';
import { notFoundData } from '../dashboard/dashboard.page-data.js';
import {
  emptyProductForm, productFormOf, productHref, productPageData, productsPageData, productsPageSize, type ProductFormState,
} from './products.page-data.js';
import { createProductSchema, updateProductSchema } from './products.schema.js';
import type { createProductsService } from './products.service.js';

// The admin console's product pages (the JSON API is products.routes.ts). Plain HTML forms post
// here with the session's CSRF token in `_csrf`; every write goes through the products service,
// so its rules and audit records are the API's. After a write the browser is redirected
// (post, redirect, get) to a page that shows what happened once.

const tags = ['pages'];
const listQuery = z.object({
  q: z.string().trim().max(200).optional().catch(undefined).transform((value) => value ?? ''),
  page: z.coerce.number().int().min(1).max(1_000_000).optional().catch(undefined).transform((value) => value ?? 1),
});
const idParams = z.object({ id: z.string() });
/** The form's fields as the browser sends them; a checkbox that is not ticked is not sent at all. */
const productForm = z.object({
  name: z.string().max(10_000).optional(),
  description: z.string().max(10_000).optional(),
  licensePrefix: z.string().max(1_000).optional(),
  isActive: z.string().max(100).optional(),
});
type ProductForm = z.infer<typeof productForm>;

const labels = { name: 'Name', description: 'Description', licensePrefix: 'License prefix', isActive: 'Active' };
const messages = { name: 'Name: enter 1 to 200 characters.', description: 'Description: at most 5,000 characters.' };

const stateOf = (form: ProductForm, errors: string[]): ProductFormState => ({
  values: { name: form.name ?? '', description: form.description ?? '', licensePrefix: form.licensePrefix ?? '', isActive: form.isActive !== undefined },
  errors,
});
/** The form as the service's input: an empty prefix means "made from the name" (create) or "unchanged" (edit). */
const inputOf = (form: ProductForm) => ({
  name: form.name ?? '',
  description: form.description ?? '',
  licensePrefix: form.licensePrefix?.trim() ? form.licensePrefix : undefined,
  isActive: form.isActive !== undefined,
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
  404: { description: 'No such product', contentType: 'text/html' },
};

type Service = ReturnType<typeof createProductsService>;

export function productPages(deps: { service: Service; public: Guard; admin: Guard; csrfToken: (req: Request) => string; auditFailure: AuditFailure }): AnyRoute[] {
  const { service } = deps;
  const failed = (req: Request, action: 'create' | 'update' | 'delete', resourceId: string | null, error: unknown) =>
    deps.auditFailure(req, { action, resourceType: 'product', resourceId }, error);
  const notFound = (res: Response, username: string) => res.status(404).render('errors/not-found', notFoundData(username));

  async function renderList(req: Request, res: Response, username: string, query: { q: string; page: number }, form: ProductFormState, status = 200) {
    const { products, total } = await service.search({ q: query.q || undefined, limit: productsPageSize, skip: (query.page - 1) * productsPageSize });
    res.status(status).render('products/list', productsPageData(username, { products, total, q: query.q, page: query.page },
      { form, messages: takeFlash(req), csrfToken: deps.csrfToken(req) }));
  }

  /** The product page; false when there is no such product (the 404 page is sent). */
  async function renderProduct(req: Request, res: Response, username: string, id: string, form?: ProductFormState, status = 200) {
    try {
      const product = await service.get(id, true);
      res.status(status).render('products/detail', productPageData(username, product,
        { form: form ?? productFormOf(product), messages: takeFlash(req), csrfToken: deps.csrfToken(req) }));
    } catch (error) {
      if (isHttpError(error) && error.status === 404) return notFound(res, username);
      throw error;
    }
  }

  return [
    defineRoute({
      method: 'get', path: '/products', summary: 'The products page', tags, guard: deps.public, query: listQuery,
      description: 'Admins: products whose name contains `q`, 20 to a `page`, with their license counts, and the form for a new one.',
      responses: pageResponses,
      handler: async ({ query, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (username) await renderList(req, res, username, query, emptyProductForm());
      },
    }),
    defineRoute({
      method: 'post', path: '/products', summary: 'Create a product (form)', tags, guard: deps.public, body: productForm,
      responses: writeResponses,
      handler: async ({ body, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (!username) return;
        const parsed = createProductSchema.safeParse(inputOf(body));
        if (!parsed.success) {
          await failed(req, 'create', null, appError('VALIDATION_FAILED'));
          return renderList(req, res, username, { q: '', page: 1 }, stateOf(body, formErrors(parsed.error, labels, messages)), 400);
        }
        try {
          const product = await service.create(actorOf(req), parsed.data);
          return redirectWithFlash(req, res, productHref(product._id), { type: 'success', text: `Product “${product.name}” created.` });
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
      method: 'get', path: '/products/:id', summary: 'A product\'s page', tags, guard: deps.public, params: idParams,
      description: 'Admins: its license counts (total and active), the form to edit it and the button to delete it.',
      responses: { ...pageResponses, 404: { description: 'No such product', contentType: 'text/html' } },
      handler: async ({ params, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (username) await renderProduct(req, res, username, params.id);
      },
    }),
    defineRoute({
      method: 'post', path: '/products/:id', summary: 'Update a product (form)', tags, guard: deps.public, params: idParams, body: productForm,
      responses: writeResponses,
      handler: async ({ params, body, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (!username) return;
        const parsed = updateProductSchema.safeParse(inputOf(body));
        if (!parsed.success) {
          await failed(req, 'update', params.id, appError('VALIDATION_FAILED'));
          return renderProduct(req, res, username, params.id, stateOf(body, formErrors(parsed.error, labels, messages)), 400);
        }
        try {
          const product = await service.update(actorOf(req), params.id, parsed.data);
          return redirectWithFlash(req, res, productHref(product._id), { type: 'success', text: `Product “${product.name}” saved.` });
        } catch (error) {
          if (isHttpError(error) && error.status === 404) {
            await failed(req, 'update', params.id, error);
            return notFound(res, username);
          }
          if (isHttpError(error) && (error.status === 400 || error.status === 409)) {
            await failed(req, 'update', params.id, error);
            return renderProduct(req, res, username, params.id, stateOf(body, [error.message]), error.status);
          }
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'post', path: '/products/:id/delete', summary: 'Delete a product without licenses (form)', tags, guard: deps.public, params: idParams,
      description: 'A product that has licenses is kept; its page then says why.',
      responses: writeResponses,
      handler: async ({ params, req, res }) => {
        const username = await adminPage(deps.admin, req, res);
        if (!username) return;
        let name: string;
        try {
          name = (await service.get(params.id, false)).name;
          await service.remove(actorOf(req), params.id);
        } catch (error) {
          if (isHttpError(error) && error.status === 404) {
            await failed(req, 'delete', params.id, error);
            return notFound(res, username);
          }
          if (isHttpError(error) && (error.status === 400 || error.status === 409)) {
            await failed(req, 'delete', params.id, error);
            return redirectWithFlash(req, res, productHref(params.id), { type: 'error', text: `${error.message}.` });
          }
          throw error;
        }
        return redirectWithFlash(req, res, '/products', { type: 'success', text: `Product “${name}” deleted.` });
      },
    }),
  ];
}
