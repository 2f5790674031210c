import type { Request } from 'express';
import { z } from 'zod';
import type { AnyRoute, Guard } from '@app/http';
import type { AuditFailure } from '../console/admin-pages.js';
import { catalogPages } from '../console/catalog-pages.js';
import {
  emptyEntitlementForm,
  entitlementFormOf,
  entitlementHref,
  entitlementPageData,
  entitlementsPageData,
  entitlementsPageSize,
  type EntitlementFormState,
} from './entitlements.page-data.js';
import { createEntitlementSchema, updateEntitlementSchema } from './entitlements.schema.js';
import type { EntitlementsService } from './entitlements.service.js';

// The admin console's entitlement pages (the JSON API is entitlements.routes.ts), built by catalogPages.

const entitlementForm = z.object({ code: z.string().max(1_000).optional(), name: z.string().max(10_000).optional() });
type EntitlementForm = z.infer<typeof entitlementForm>;
const inputOf = (form: EntitlementForm) => ({ code: form.code?.trim() ?? '', name: form.name ?? '' });

export function entitlementPages(deps: {
  service: EntitlementsService;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  auditFailure: AuditFailure;
}): AnyRoute[] {
  const { service } = deps;
  return catalogPages(
    {
      resourceType: 'entitlement',
      noun: 'Entitlement',
      basePath: '/entitlements',
      views: { list: 'entitlements/list', detail: 'entitlements/detail' },
      pageSize: entitlementsPageSize,
      form: entitlementForm,
      labels: { code: 'Code', name: 'Name' },
      messages: { code: 'Code: 1 to 64 letters, digits, "_", "." or "-".', name: 'Name: enter 1 to 200 characters.' },
      emptyForm: emptyEntitlementForm,
      formOf: entitlementFormOf,
      stateOf: (form, errors): EntitlementFormState => ({
        values: { code: form.code ?? '', name: form.name ?? '' },
        errors,
      }),
      create: { schema: createEntitlementSchema, inputOf },
      update: { schema: updateEntitlementSchema, inputOf },
      service: {
        list: async (query) => {
          const { entitlements, total } = await service.search(query);
          return { items: entitlements, total };
        },
        get: (id) => service.get(id),
        create: service.create,
        update: service.update,
        remove: service.remove,
      },
      listData: entitlementsPageData,
      detailData: entitlementPageData,
      href: entitlementHref,
      docs: {
        list: 'Admins: entitlements (feature flags) by code whose code or name contains `q`, and the form for a new one.',
        detail: 'Admins: the form to edit it and the button to delete it.',
        deleteSummary: 'Delete an entitlement no policy or license grants (form)',
        deleteDescription: 'One still granted is kept; its page then says why.',
      },
    },
    deps,
  );
}
