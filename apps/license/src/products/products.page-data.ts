import { adminLayout } from '../console/layout.js';
import type { FlashMessage } from '../console/admin-pages.js';
import { utcTime } from '../console/utc-time.js';
import type { ProductJson } from './products.presenter.js';
import { pageCount } from '../console/paging.js';
import { say } from '../console/language.js';

// What the product pages' views (views/products) receive: plain data, texts unescaped (the
// views escape them), numbers formatted.

export const productsPageSize = 20;
const number = (value: number) => value.toLocaleString('en-US');

/** What the product form shows: the values entered (or stored) and what was wrong with them. */
export interface ProductFormState {
  values: { name: string; description: string; licensePrefix: string; isActive: boolean };
  errors: string[];
}

export const emptyProductForm = (): ProductFormState => ({
  values: { name: '', description: '', licensePrefix: '', isActive: true },
  errors: [],
});

export const productFormOf = (product: ProductJson): ProductFormState => ({
  values: {
    name: product.name,
    description: product.description ?? '',
    licensePrefix: product.licensePrefix ?? '',
    isActive: product.isActive,
  },
  errors: [],
});

export const productHref = (id: string) => `/products/${encodeURIComponent(id)}`;

const listAddress = (q: string, page: number) => {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return `/products${query ? `?${query}` : ''}`;
};

export interface ProductsPage {
  products: ProductJson[];
  total: number;
  q: string;
  page: number;
}

/** `/products`: the search, a page of products, and the form for a new one. */
export function productsPageData(
  username: string,
  list: ProductsPage,
  extras: { form: ProductFormState; messages: FlashMessage[]; csrfToken: string },
) {
  const pages = pageCount(list.total, productsPageSize);
  return {
    ...adminLayout(say('common.products'), username, 'products'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    form: extras.form,
    q: list.q,
    total: number(list.total),
    count: list.total,
    products: list.products.map((product) => ({
      id: product._id,
      name: product.name,
      prefix: product.licensePrefix ?? '',
      active: product.isActive,
      licenses: number(product.licenseCount ?? 0),
      activeLicenses: number(product.activeLicenseCount ?? 0),
      href: productHref(product._id),
    })),
    pagination: { page: list.page, pages, href: (page: number) => listAddress(list.q, page) },
  };
}

/** `/products/:id`: its license counts, the edit form and the delete button. */
export function productPageData(
  username: string,
  product: ProductJson,
  extras: { form: ProductFormState; messages: FlashMessage[]; csrfToken: string },
) {
  const licenses = product.licenseCount ?? 0;
  return {
    ...adminLayout(product.name, username, 'products'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    form: extras.form,
    product: {
      id: product._id,
      name: product.name,
      description: product.description ?? '',
      prefix: product.licensePrefix ?? '',
      active: product.isActive,
      licenses: number(licenses),
      activeLicenses: number(product.activeLicenseCount ?? 0),
      createdAt: utcTime(product.createdAt),
      updatedAt: utcTime(product.updatedAt),
      href: productHref(product._id),
    },
    deleteQuestion:
      licenses > 0
        ? `Delete the product “${product.name}”? It has ${number(licenses)} license${licenses === 1 ? '' : 's'}, so it will not be deleted.`
        : `Delete the product “${product.name}”? This cannot be undone.`,
  };
}
