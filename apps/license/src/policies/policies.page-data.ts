import { adminLayout } from '../console/layout.js';
import type { CatalogPageExtras } from '../console/catalog-pages.js';
import { utcTime } from '../console/utc-time.js';
import { licenseTypes } from '../common/license-kinds.js';
import type { PolicyJson } from './policies.presenter.js';
import { pageCount } from '../console/paging.js';
import { say } from '../console/language.js';

// What the policy pages' views (views/policies) receive: plain data, texts unescaped (the views
// escape them), numbers formatted.

export const policiesPageSize = 20;
const number = (value: number) => value.toLocaleString('en-US');

export interface PolicyFormValues {
  productId: string;
  name: string;
  licenseType: string;
  durationDays: string;
  ipLimit: string;
  hwidLimit: string;
  heartbeatSeconds: string;
  graceDays: string;
  expirationStrategy: string;
  borrowHours: string;
  sharingAddressLimit: string;
  credits: string;
  entitlements: string[];
}
export interface PolicyFormState {
  values: PolicyFormValues;
  errors: string[];
}
/** The forms' choices (`options` of the catalogue pages). */
export interface PolicyOptions {
  products: Array<{ id: string; name: string }>;
  entitlements: Array<{ code: string; name: string }>;
}

const text = (value: number | null) => (value === null ? '' : String(value));

export const emptyPolicyForm = (): PolicyFormState => ({
  values: {
    productId: '',
    name: '',
    licenseType: '',
    durationDays: '',
    ipLimit: '',
    hwidLimit: '',
    heartbeatSeconds: '',
    graceDays: '',
    expirationStrategy: '',
    borrowHours: '',
    sharingAddressLimit: '',
    credits: '',
    entitlements: [],
  },
  errors: [],
});
export const policyFormOf = (policy: PolicyJson): PolicyFormState => ({
  values: {
    productId: policy.productId,
    name: policy.name,
    licenseType: policy.licenseType ?? '',
    durationDays: text(policy.durationDays),
    ipLimit: text(policy.ipLimit),
    hwidLimit: text(policy.hwidLimit),
    heartbeatSeconds: text(policy.heartbeatSeconds),
    graceDays: text(policy.graceDays),
    expirationStrategy: policy.expirationStrategy ?? '',
    borrowHours: text(policy.borrowHours),
    sharingAddressLimit: text(policy.sharingAddressLimit),
    credits: text(policy.credits),
    entitlements: policy.entitlements,
  },
  errors: [],
});
export const policyHref = (id: string) => `/policies/${encodeURIComponent(id)}`;

const listAddress = (q: string, product: string | undefined, page: number) => {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  if (product) params.set('product', product);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return `/policies${query ? `?${query}` : ''}`;
};

/** What the form's selects and checkboxes offer. */
function formChoices(options: Record<string, unknown>) {
  const { products = [], entitlements = [] } = options as Partial<PolicyOptions>;
  return {
    products: products.map((product) => ({ value: product.id, label: product.name })),
    types: [
      { value: '', label: 'Not set (fixed)' },
      ...licenseTypes.map((type) => ({ value: type, label: type[0]!.toUpperCase() + type.slice(1) })),
    ],
    entitlements: entitlements.map((item) => ({ code: item.code, label: `${item.name} (${item.code})` })),
  };
}

/** A limit as the pages show it: "—" when the policy leaves it to the license. */
const shown = (value: number | null, unit = '') =>
  value === null ? '—' : value === 0 && !unit ? 'unlimited' : `${number(value)}${unit}`;

function policyView(policy: PolicyJson) {
  return {
    id: policy._id,
    name: policy.name,
    product: policy.product.name,
    productId: policy.productId,
    href: policyHref(policy._id),
    type: policy.licenseType ?? '—',
    duration:
      policy.durationDays === null ? '—' : `${number(policy.durationDays)} day${policy.durationDays === 1 ? '' : 's'}`,
    ipLimit: shown(policy.ipLimit),
    hwidLimit: shown(policy.hwidLimit),
    heartbeat: shown(policy.heartbeatSeconds, ' s'),
    grace: policy.graceDays === null ? '—' : `${number(policy.graceDays)} day${policy.graceDays === 1 ? '' : 's'}`,
    strategy: policy.expirationStrategy ?? '—',
    borrow: shown(policy.borrowHours, ' h'),
    sharingLimit:
      policy.sharingAddressLimit === null
        ? 'none'
        : `${number(policy.sharingAddressLimit)} address${policy.sharingAddressLimit === 1 ? '' : 'es'} a day`,
    credits: policy.credits === null ? '—' : number(policy.credits),
    entitlements: policy.entitlements,
    licenses: number(policy.licenseCount),
  };
}

/** `/policies`: the search, a page of policies (of one product with `?product=`), and the form for a new one. */
export function policiesPageData(
  username: string,
  list: { items: PolicyJson[]; total: number; q: string; page: number; product?: string },
  extras: CatalogPageExtras<PolicyFormState>,
) {
  const choices = formChoices(extras.options);
  const product = list.product ? choices.products.find((item) => item.value === list.product) : undefined;
  const form =
    list.product && !extras.form.values.productId
      ? { ...extras.form, values: { ...extras.form.values, productId: list.product } }
      : extras.form;
  return {
    ...adminLayout(say('common.policies'), username, 'products'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    form,
    q: list.q,
    total: number(list.total),
    count: list.total,
    product: product ? { id: product.value, name: product.label } : null,
    policies: list.items.map(policyView),
    choices,
    pagination: {
      page: list.page,
      pages: pageCount(list.total, policiesPageSize),
      href: (page: number) => listAddress(list.q, list.product, page),
    },
  };
}

/** `/policies/:id`: what it sets, the edit form and the delete button. */
export function policyPageData(username: string, policy: PolicyJson, extras: CatalogPageExtras<PolicyFormState>) {
  return {
    ...adminLayout(policy.name, username, 'products'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    form: extras.form,
    policy: { ...policyView(policy), createdAt: utcTime(policy.createdAt), updatedAt: utcTime(policy.updatedAt) },
    choices: formChoices(extras.options),
    deleteQuestion:
      policy.licenseCount > 0
        ? `Delete the policy “${policy.name}”? ${number(policy.licenseCount)} license${policy.licenseCount === 1 ? ' uses' : 's use'} it, so it will not be deleted.`
        : `Delete the policy “${policy.name}”? This cannot be undone.`,
  };
}
