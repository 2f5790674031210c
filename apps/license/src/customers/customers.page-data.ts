import { adminLayout } from '../console/layout.js';
import type { FlashMessage } from '../console/admin-pages.js';
import { utcTime } from '../console/utc-time.js';
import type { CustomerJson } from './customers.presenter.js';
import { pageCount } from '../console/paging.js';
import { say } from '../console/language.js';

// What the customer pages' views (views/customers) receive: plain data, texts unescaped (the
// views escape them), numbers formatted.

export const customersPageSize = 20;
const number = (value: number) => value.toLocaleString('en-US');
const licensesText = (count: number) => `${number(count)} license${count === 1 ? '' : 's'}`;

/** What the customer form shows: the values entered (or stored) and what was wrong with them. */
export interface CustomerFormState {
  values: { name: string; email: string; userId: string };
  errors: string[];
}

export const emptyCustomerForm = (): CustomerFormState => ({ values: { name: '', email: '', userId: '' }, errors: [] });

export const customerFormOf = (customer: CustomerJson): CustomerFormState => ({
  values: { name: customer.name, email: customer.email ?? '', userId: customer.userId ?? '' },
  errors: [],
});

export const customerHref = (id: string) => `/customers/${encodeURIComponent(id)}`;

const listAddress = (q: string, page: number) => {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return `/customers${query ? `?${query}` : ''}`;
};

export interface CustomersPage {
  customers: CustomerJson[];
  total: number;
  q: string;
  page: number;
}

/** `/customers`: the search, a page of customers, and the form for a new one. */
export function customersPageData(
  username: string,
  list: CustomersPage,
  extras: { form: CustomerFormState; messages: FlashMessage[]; csrfToken: string },
) {
  return {
    ...adminLayout(say('common.customers'), username, 'customers'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    form: extras.form,
    q: list.q,
    total: number(list.total),
    count: list.total,
    customers: list.customers.map((customer) => ({
      id: customer._id,
      name: customer.name,
      email: customer.email ?? '',
      // Where a long address may wrap in a narrow column: before "@" and each ".".
      emailParts: (customer.email ?? '').split(/(?=[@.])/),
      userId: customer.userId ?? '',
      licenses: number(customer.licenseCount ?? 0),
      href: customerHref(customer._id),
    })),
    pagination: {
      page: list.page,
      pages: pageCount(list.total, customersPageSize),
      href: (page: number) => listAddress(list.q, page),
    },
  };
}

/** `/customers/:id`: their license count, the edit form and the delete button. */
export function customerPageData(
  username: string,
  customer: CustomerJson,
  extras: { form: CustomerFormState; messages: FlashMessage[]; csrfToken: string },
) {
  const licenses = customer.licenseCount ?? 0;
  return {
    ...adminLayout(customer.name, username, 'customers'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    form: extras.form,
    customer: {
      id: customer._id,
      name: customer.name,
      email: customer.email ?? '',
      userId: customer.userId ?? '',
      licenses: number(licenses),
      createdAt: utcTime(customer.createdAt),
      updatedAt: utcTime(customer.updatedAt),
      href: customerHref(customer._id),
    },
    deleteQuestion:
      licenses === 0
        ? `Delete the customer “${customer.name}”? They have no licenses.`
        : `Delete the customer “${customer.name}”? Their ${licensesText(licenses)} ${licenses === 1 ? 'stays' : 'stay'} and keep${licenses === 1 ? 's' : ''} working, without a customer.`,
  };
}
