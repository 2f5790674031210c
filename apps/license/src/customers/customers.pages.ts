import type { Request } from 'express';
import { z } from 'zod';
import type { AnyRoute, Guard } from '@app/http';
import type { AuditFailure } from '../console/admin-pages.js';
import { catalogPages } from '../console/catalog-pages.js';
import {
  customerFormOf,
  customerHref,
  customerPageData,
  customersPageData,
  customersPageSize,
  emptyCustomerForm,
  type CustomerFormState,
} from './customers.page-data.js';
import { createCustomerSchema, updateCustomerSchema } from './customers.schema.js';
import type { createCustomersService } from './customers.service.js';

// The admin console's customer pages (the JSON API is customers.routes.ts), built by
// catalogPages: what is said here is only what is a customer's own.

/** The form's fields as the browser sends them. */
const customerForm = z.object({
  name: z.string().max(10_000).optional(),
  email: z.string().max(10_000).optional(),
  userId: z.string().max(10_000).optional(),
});

const blankToUndefined = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

type Service = ReturnType<typeof createCustomersService>;

export function customerPages(deps: {
  service: Service;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  auditFailure: AuditFailure;
}): AnyRoute[] {
  const { service } = deps;
  return catalogPages(
    {
      resourceType: 'customer',
      noun: 'Customer',
      basePath: '/customers',
      views: { list: 'customers/list', detail: 'customers/detail' },
      pageSize: customersPageSize,
      form: customerForm,
      labels: { name: 'Name', email: 'Email', userId: 'Provider user id' },
      messages: {
        name: 'Name: enter 1 to 200 characters.',
        email: 'Email: enter an email address, like name@example.com.',
        userId: 'Provider user id: at most 200 characters.',
      },
      emptyForm: emptyCustomerForm,
      formOf: customerFormOf,
      stateOf: (form, errors): CustomerFormState => ({
        values: { name: form.name ?? '', email: form.email ?? '', userId: form.userId ?? '' },
        errors,
      }),
      create: {
        schema: createCustomerSchema,
        inputOf: (form) => ({
          name: form.name ?? '',
          email: (form.email ?? '').trim(),
          userId: blankToUndefined(form.userId),
        }),
      },
      // An empty provider user id on edit unlinks the customer from their sign-in.
      update: {
        schema: updateCustomerSchema,
        inputOf: (form) => ({
          name: form.name ?? '',
          email: (form.email ?? '').trim(),
          userId: blankToUndefined(form.userId) ?? null,
        }),
      },
      service: {
        list: async ({ q, limit, skip }) => {
          const { customers, total } = await service.list({ search: q, limit, skip });
          return { items: customers, total };
        },
        get: service.get,
        create: service.create,
        update: service.update,
        remove: service.remove,
      },
      listData: (username, { items, ...list }, extras) =>
        customersPageData(username, { customers: items, ...list }, extras),
      detailData: customerPageData,
      href: customerHref,
      docs: {
        list: 'Admins: customers whose name or email contains `q` (or whose provider user id is `q`), 20 to a `page`, with their license counts, and the form for a new one.',
        detail: 'Admins: their license count, the form to edit them and the button to delete them.',
        update: 'An empty provider user id unlinks the customer from their sign-in.',
        deleteSummary: 'Delete a customer (form; their licenses stay)',
        deleted: 'catalog.flash.customer.licensesStay',
        writeResponses: {
          409: { description: 'The form, saying the provider user id is taken', contentType: 'text/html' },
        },
      },
    },
    deps,
  );
}
