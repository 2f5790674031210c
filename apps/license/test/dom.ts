import { JSDOM } from 'jsdom';

// Reading the console's and portal's HTML answers the way the page tests need them.

/** The parsed page, for querySelector and friends. */
export const documentOf = (html: string) => new JSDOM(html).window.document;

/** The page's visible text with runs of white space made one space. */
export const textOf = (html: string) => (documentOf(html).body.textContent ?? '').replace(/\s+/g, ' ');

/** The CSRF token a page's forms carry. */
export const formToken = (html: string) =>
  documentOf(html).querySelector<HTMLInputElement>('input[name="_csrf"]')?.value ?? '';
