import { JSDOM } from 'jsdom';

// Reading HTML answers the way both apps' page tests need them (no browser: jsdom).

/** The parsed page, for querySelector and friends. */
export const documentOf = (html: string) => new JSDOM(html).window.document;

/** The page's visible text with runs of white space made one space. */
export const textOf = (html: string) => (documentOf(html).body.textContent ?? '').replace(/\s+/g, ' ');

/** The CSRF token a page's forms carry. */
export const formToken = (html: string) =>
  documentOf(html).querySelector<HTMLInputElement>('input[name="_csrf"]')?.value ?? '';
