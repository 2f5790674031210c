import type { Request } from 'express';
import { z } from 'zod';
import type { AnyRoute, Guard } from '@app/http';
import type { AuditFailure } from '../console/admin-pages.js';
import { catalogPages } from '../console/catalog-pages.js';
import {
  emptyPolicyForm,
  policiesPageData,
  policiesPageSize,
  policyFormOf,
  policyHref,
  policyPageData,
  type PolicyFormState,
  type PolicyOptions,
} from './policies.page-data.js';
import { createPolicySchema, updatePolicySchema } from './policies.schema.js';
import type { PoliciesService } from './policies.service.js';

// The admin console's policy pages (the JSON API is policies.routes.ts), built by catalogPages.

const field = z.string().max(1_000).optional();
/** Ticked entitlement boxes: none is absent, one a string, several a list. */
export const checkedCodes = z
  .union([z.string().max(100), z.array(z.string().max(100)).max(1_000)])
  .optional()
  .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));
const policyForm = z.object({
  productId: field,
  name: z.string().max(10_000).optional(),
  licenseType: field,
  durationDays: field,
  ipLimit: field,
  hwidLimit: field,
  heartbeatSeconds: field,
  graceDays: field,
  expirationStrategy: field,
  borrowHours: field,
  sharingAddressLimit: field,
  credits: field,
  entitlements: checkedCodes,
});
type PolicyForm = z.infer<typeof policyForm>;

/** A form's number: empty is "not set" (null), anything but digits NaN, which the schema refuses. */
const whole = (value: string | undefined) => {
  const text = value?.trim() ?? '';
  return text === '' ? null : /^\d+$/.test(text) ? Number(text) : Number.NaN;
};
/** Every field, as the form shows them all: an emptied field clears the policy's value. */
const inputOf = (form: PolicyForm) => ({
  productId: form.productId ?? '',
  name: form.name ?? '',
  licenseType: form.licenseType?.trim() || null,
  durationDays: whole(form.durationDays),
  ipLimit: whole(form.ipLimit),
  hwidLimit: whole(form.hwidLimit),
  heartbeatSeconds: whole(form.heartbeatSeconds),
  graceDays: whole(form.graceDays),
  expirationStrategy: form.expirationStrategy?.trim() || null,
  borrowHours: whole(form.borrowHours),
  sharingAddressLimit: whole(form.sharingAddressLimit),
  credits: whole(form.credits),
  entitlements: form.entitlements,
});
const stateOf = (form: PolicyForm, errors: string[]): PolicyFormState => ({
  values: {
    productId: form.productId ?? '',
    name: form.name ?? '',
    licenseType: form.licenseType ?? '',
    durationDays: form.durationDays ?? '',
    ipLimit: form.ipLimit ?? '',
    hwidLimit: form.hwidLimit ?? '',
    heartbeatSeconds: form.heartbeatSeconds ?? '',
    graceDays: form.graceDays ?? '',
    expirationStrategy: form.expirationStrategy ?? '',
    borrowHours: form.borrowHours ?? '',
    sharingAddressLimit: form.sharingAddressLimit ?? '',
    credits: form.credits ?? '',
    entitlements: form.entitlements,
  },
  errors,
});

export function policyPages(deps: {
  service: PoliciesService;
  options: () => Promise<PolicyOptions>;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  auditFailure: AuditFailure;
}): AnyRoute[] {
  const { service } = deps;
  return catalogPages(
    {
      resourceType: 'policy',
      noun: 'Policy',
      basePath: '/policies',
      views: { list: 'policies/list', detail: 'policies/detail' },
      pageSize: policiesPageSize,
      form: policyForm,
      labels: {
        productId: 'Product',
        name: 'Name',
        licenseType: 'License type',
        durationDays: 'Duration (days)',
        ipLimit: 'IP limit',
        hwidLimit: 'Hardware limit',
        heartbeatSeconds: 'Floating seats',
        graceDays: 'Grace period',
        expirationStrategy: 'After expiry',
        borrowHours: 'Borrowing',
        sharingAddressLimit: 'Sharing limit',
        credits: 'Credits',
        entitlements: 'Entitlements',
      },
      messages: {
        productId: 'Product: choose one.',
        name: 'Name: enter 1 to 200 characters.',
        durationDays: 'Duration: a whole number of days from 1 to 36,500, or empty.',
        heartbeatSeconds: 'Floating seats: a whole number of seconds from 10 to 86,400, or empty.',
        graceDays: 'Grace period: a whole number of days from 0 to 90, or empty.',
        expirationStrategy: 'After expiry: revoke or maintain.',
        borrowHours: 'Borrowing: a whole number of hours from 0 to 720, or empty.',
        sharingAddressLimit: 'Sharing limit: a whole number of addresses from 1 to 1,000,000, or empty.',
      },
      emptyForm: emptyPolicyForm,
      formOf: policyFormOf,
      stateOf,
      options: async () => ({ ...(await deps.options()) }),
      create: { schema: createPolicySchema, inputOf },
      update: { schema: updatePolicySchema, inputOf },
      service: {
        list: async (query) => {
          const { policies, total } = await service.search({ ...query, productId: query.product });
          return { items: policies, total };
        },
        get: (id) => service.get(id),
        create: service.create,
        update: service.update,
        remove: service.remove,
      },
      listData: policiesPageData,
      detailData: policyPageData,
      href: policyHref,
      docs: {
        list: 'Admins: policies (license templates) whose name contains `q`, of one product with `product`, and the form for a new one.',
        detail: 'Admins: what it sets, the form to edit it and the button to delete it.',
        deleteSummary: 'Delete a policy no license uses (form)',
        deleteDescription: 'A policy that licenses use is kept; its page then says why.',
      },
    },
    deps,
  );
}
