import { adminLayout } from '../console/layout.js';
import type { CatalogPageExtras } from '../console/catalog-pages.js';
import { utcTime } from '../console/utc-time.js';
import type { EntitlementJson } from './entitlements.presenter.js';
import { pageCount } from '../console/paging.js';
import { say } from '../console/language.js';

// What the entitlement pages' views (views/entitlements) receive: plain data, texts unescaped.

export const entitlementsPageSize = 50;

export interface EntitlementFormState {
  values: { code: string; name: string };
  errors: string[];
}

export const emptyEntitlementForm = (): EntitlementFormState => ({ values: { code: '', name: '' }, errors: [] });
export const entitlementFormOf = (item: EntitlementJson): EntitlementFormState => ({
  values: { code: item.code, name: item.name },
  errors: [],
});
export const entitlementHref = (id: string) => `/entitlements/${encodeURIComponent(id)}`;

const listAddress = (q: string, page: number) => {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return `/entitlements${query ? `?${query}` : ''}`;
};

/** `/entitlements`: the search, a page of entitlements by code, and the form for a new one. */
export function entitlementsPageData(
  username: string,
  list: { items: EntitlementJson[]; total: number; q: string; page: number },
  extras: CatalogPageExtras<EntitlementFormState>,
) {
  return {
    ...adminLayout(say('common.entitlements'), username, 'products'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    form: extras.form,
    q: list.q,
    total: list.total,
    entitlements: list.items.map((item) => ({
      id: item._id,
      code: item.code,
      name: item.name,
      href: entitlementHref(item._id),
    })),
    pagination: {
      page: list.page,
      pages: pageCount(list.total, entitlementsPageSize),
      href: (page: number) => listAddress(list.q, page),
    },
  };
}

/** `/entitlements/:id`: the edit form and the delete button. */
export function entitlementPageData(
  username: string,
  item: EntitlementJson,
  extras: CatalogPageExtras<EntitlementFormState>,
) {
  return {
    ...adminLayout(item.name, username, 'products'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    form: extras.form,
    entitlement: {
      id: item._id,
      code: item.code,
      name: item.name,
      href: entitlementHref(item._id),
      createdAt: utcTime(item.createdAt),
      updatedAt: utcTime(item.updatedAt),
    },
    deleteQuestion: `Delete the entitlement “${item.name}” (${item.code})? A policy or license that grants it keeps it: then it is not deleted.`,
  };
}
