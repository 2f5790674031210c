import type { Request } from 'express';
import type { Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { sentenceOf, type AuditFailure, type FlashMessage } from '../console/admin-pages.js';
import type { AdminSettingsService } from './admin-settings.service.js';

// What the settings pages' route files share.

export const tags = ['pages'];

export const pageResponses = {
  200: { description: 'The page', contentType: 'text/html' },
  303: { description: 'Not signed in or two-factor pending: to `/`' },
  403: { description: 'Not an admin', contentType: 'text/html' },
};

export const writeResponses = {
  303: { description: 'Done (or refused, or not signed in): to the page that shows the message' },
  400: { description: 'The form with what is wrong', contentType: 'text/html' },
  403: { description: 'Not an admin, or no valid CSRF token', contentType: 'text/html' },
};

export interface SettingsPagesDeps {
  service: AdminSettingsService;
  /** The admin guard as a page answers it (adminPageGuard). */
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  auditFailure: AuditFailure;
  now: () => Date;
}

/** The admin the guard recognised (the pages call adminPage first). */
export const adminOf = (req: Request) => {
  if (!req.admin) throw appError('UNAUTHORIZED');
  return req.admin;
};

export const failure = (text: string): FlashMessage => ({ type: 'error', text: sentenceOf(text) });
export const success = (text: string): FlashMessage => ({ type: 'success', text });
