import type { Request } from 'express';
import { z } from 'zod';
import type { AnyRoute, Guard } from '@app/http';
import type { AuditFailure } from '../console/admin-pages.js';
import { catalogPages } from '../console/catalog-pages.js';
import {
  emptyProductForm,
  productFormOf,
  productHref,
  productPageData,
  productsPageData,
  productsPageSize,
  type ProductFormState,
} from './products.page-data.js';
import { createProductSchema, updateProductSchema } from './products.schema.js';
import type { createProductsService } from './products.service.js';

// The admin console's product pages (the JSON API is products.routes.ts), built by
// catalogPages: what is said here is only what is a product's own.

/** The form's fields as the browser sends them; a checkbox that is not ticked is not sent at all. */
const productForm = z.object({
  name: z.string().max(10_000).optional(),
  description: z.string().max(10_000).optional(),
  licensePrefix: z.string().max(1_000).optional(),
  isActive: z.string().max(100).optional(),
});
type ProductForm = z.infer<typeof productForm>;

/** The form as the service's input: an empty prefix means "made from the name" (create) or "unchanged" (edit). */
const inputOf = (form: ProductForm) => ({
  name: form.name ?? '',
  description: form.description ?? '',
  licensePrefix: form.licensePrefix?.trim() ? form.licensePrefix : undefined,
  isActive: form.isActive !== undefined,
});

type Service = ReturnType<typeof createProductsService>;

export function productPages(deps: {
  service: Service;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  auditFailure: AuditFailure;
}): AnyRoute[] {
  const { service } = deps;
  return catalogPages(
    {
      resourceType: 'product',
      noun: 'Product',
      basePath: '/products',
      views: { list: 'products/list', detail: 'products/detail' },
      pageSize: productsPageSize,
      form: productForm,
      labels: { name: 'Name', description: 'Description', licensePrefix: 'License prefix', isActive: 'Active' },
      messages: { name: 'Name: enter 1 to 200 characters.', description: 'Description: at most 5,000 characters.' },
      emptyForm: emptyProductForm,
      formOf: productFormOf,
      stateOf: (form, errors): ProductFormState => ({
        values: {
          name: form.name ?? '',
          description: form.description ?? '',
          licensePrefix: form.licensePrefix ?? '',
          isActive: form.isActive !== undefined,
        },
        errors,
      }),
      create: { schema: createProductSchema, inputOf },
      update: { schema: updateProductSchema, inputOf },
      service: {
        list: async (query) => {
          const { products, total } = await service.search(query);
          return { items: products, total };
        },
        // With its license counts, which its page shows.
        get: (id) => service.get(id, true),
        create: service.create,
        update: service.update,
        remove: service.remove,
      },
      listData: (username, { items, ...list }, extras) =>
        productsPageData(username, { products: items, ...list }, extras),
      detailData: productPageData,
      href: productHref,
      docs: {
        list: 'Admins: products whose name contains `q`, 20 to a `page`, with their license counts, and the form for a new one.',
        detail: 'Admins: its license counts (total and active), the form to edit it and the button to delete it.',
        deleteSummary: 'Delete a product without licenses (form)',
        deleteDescription: 'A product that has licenses is kept; its page then says why.',
      },
    },
    deps,
  );
}
