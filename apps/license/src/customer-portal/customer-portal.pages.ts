import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute, isHttpError, type AnyRoute, type Guard } from '@app/http';
import type { CustomerRecord } from '../common/request.js';
import { layout, notFoundData } from '../console/layout.js';
import { utcTime } from '../console/utc-time.js';
import { offlineResultData } from '../machines/offline-activation.page-data.js';
import { actorOf } from '../common/actor.js';
import { guardResult, signInAddressFor } from '../console/admin-pages.js';
import { defaultChartDays, licensePageData, licensesPageData } from './customer-portal.page-data.js';
import type { createCustomerPortalService } from './customer-portal.service.js';
import { pageNumber } from '../console/paging.js';
import { say } from '../console/language.js';

// The customer portal's web pages (the JSON API is customer-portal.routes.ts). A page never
// answers an error as JSON: a license that is not the customer's gets the 404 page.

/** A UTC calendar date `YYYY-MM-DD` that exists (2026-02-30 does not). */
const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
  });

/** The address's choices; what cannot be read falls back to the default instead of failing the page. */
const licensePageQuery = z.object({
  days: z
    .enum(['7', '30', '90'])
    .optional()
    .catch(undefined)
    .transform((value) => (value ? Number(value) : defaultChartDays)),
  from: calendarDate.optional().catch(undefined),
  to: calendarDate.optional().catch(undefined),
  page: pageNumber,
});
const licensePageParams = z.object({ licenseId: z.string() });
const offlineForm = z.object({ requestCode: z.string().max(10_000).optional() });

type Service = ReturnType<typeof createCustomerPortalService>;

/** A release the customer may download, as the Downloads page lists it. */
export interface CustomerDownload {
  productName: string;
  version: string;
  channel: string;
  publishedAt: string;
  notes: string | null;
  artifacts: Array<{ filename: string; platform: string; arch: string; size: number; sha256: string; url: string }>;
}

const sizeText = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;

/** The pages, and the list that the front page `/` shows a signed-in customer. */
export function customerPortalPages(deps: {
  service: Service;
  /** The customer guard of the API (`access/guards.ts`), which the page guard answers as pages. */
  customer: Guard;
  panicMode: () => boolean;
  csrfToken: (req: Request) => string;
  /** The published releases the customer's licenses cover, each file with a link (distribution/). */
  downloads: (customerId: string) => Promise<CustomerDownload[]>;
}) {
  const { service } = deps;

  /** The offline activation page of one of the customer's licenses (a 404 when it is not theirs), with the code as typed. */
  async function offlinePage(req: Request, licenseId: string, body: z.infer<typeof offlineForm>) {
    const customer = signedInCustomer(req);
    const license = await service.detail(customer.id, licenseId);
    const back = `/my-licenses/${encodeURIComponent(license._id)}`;
    const value = (body.requestCode ?? '').replace(/\s+/g, '');
    const page = {
      ...layout(`${say('common.offlineActivation')} · ${license.product.name}`, req.user?.username ?? customer.name),
      product: license.product.name,
      back,
      form: { action: `${back}/machines/offline`, csrfToken: deps.csrfToken(req), value },
    };
    return { license, page };
  }

  /** Renders the customer's licenses (the dashboard route calls this for customers at `/`). */
  async function home(res: Response, username: string, customer: CustomerRecord): Promise<void> {
    // Panic mode closes the customer API; the page says so instead of reading licenses.
    const panicMode = deps.panicMode();
    const page = panicMode ? { licenses: [], now: new Date() } : await service.licensesPage(customer.id);
    res.render(
      'customer-portal/licenses',
      licensesPageData(username, { customerName: customer.name, panicMode, ...page }),
    );
  }

  /**
   * The customer guard as the portal's pages answer it: a visitor (401) goes to `/` to sign in,
   * a user who is not a customer (403) gets the 404 page (a license page of theirs does not exist).
   */
  const customerPage: Guard = {
    name: deps.customer.name,
    security: deps.customer.security,
    middleware: [
      (req, res, next) => {
        res.set('Cache-Control', 'no-store');
        guardResult(deps.customer, req, res).then((error) => {
          if (!error) return next();
          if (isHttpError(error) && error.status === 401) return res.redirect(signInAddressFor(req));
          if (isHttpError(error) && error.status === 403) {
            return res.status(404).render('errors/not-found', notFoundData(req.user?.username));
          }
          next(error);
        }, next);
      },
    ],
  };

  /** The customer the page guard let through. */
  const signedInCustomer = (req: Request): CustomerRecord => {
    if (!req.customer) throw new Error('signedInCustomer called on a route without the customer page guard');
    return req.customer;
  };

  const routes: AnyRoute[] = [
    defineRoute({
      method: 'get',
      path: '/my-downloads',
      summary: 'My downloads',
      tags: ['pages'],
      guard: customerPage,
      answer: 'page',
      description:
        "The published releases the signed-in customer's licenses cover (entitlements, expiry; a `maintain` license keeps what was published before it expired), each file with a link that works for 10 minutes.",
      responses: {
        200: { description: 'The page', contentType: 'text/html' },
        302: { description: 'Not signed in: to the sign-in page' },
        404: { description: 'Not a customer', contentType: 'text/html' },
      },
      handler: async ({ req, res }) => {
        const customer = signedInCustomer(req);
        const username = req.user?.username ?? customer.name;
        if (deps.panicMode()) return home(res, username, customer);
        const releases = await deps.downloads(customer.id);
        res.render('customer-portal/downloads', {
          ...layout(say('common.downloads'), username),
          releases: releases.map((release) => ({
            ...release,
            publishedAt: utcTime(release.publishedAt),
            artifacts: release.artifacts.map((artifact) => ({ ...artifact, size: sizeText(artifact.size) })),
          })),
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/my-licenses/:licenseId',
      summary: 'The page of one of my licenses',
      tags: ['pages'],
      guard: customerPage,
      answer: 'page',
      params: licensePageParams,
      query: licensePageQuery,
      description:
        'Its fields, validations per day (`days`: 7, 30 or 90), the usage records (`from`, `to`: UTC dates; `page`), credits, IPs and hardware ids. Visitors are sent to `/` to sign in.',
      responses: {
        200: { description: 'The page', contentType: 'text/html' },
        302: { description: 'Not signed in: to the sign-in page' },
        404: { description: 'Not a license of the signed-in customer', contentType: 'text/html' },
      },
      handler: async ({ params, query, req, res }) => {
        const customer = signedInCustomer(req);
        const username = req.user?.username ?? customer.name;
        if (deps.panicMode()) return home(res, username, customer);
        const page = await service.licensePage(customer.id, params.licenseId, query);
        res.render('customer-portal/license', {
          ...licensePageData(username, { customerName: customer.name, ...page }, query),
          csrfToken: deps.csrfToken(req),
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/my-licenses/:licenseId/machines/offline',
      summary: 'Activate an air-gapped machine of my license from its request code (form)',
      tags: ['pages'],
      guard: customerPage,
      params: licensePageParams,
      body: offlineForm,
      answer: 'page',
      // Refused: the reason beside the form (a license that is not the customer's is the not-found page).
      refused: {
        when: (error) => !(error.status === 404 && error.message === 'License not found'),
        render: async (error, { params, body, req, res }) => {
          const { page } = await offlinePage(req, params.licenseId, body);
          res
            .status(error.status)
            .render('customer-portal/offline', { ...page, error: `${error.message}.`, result: null });
        },
      },
      description:
        'The same rules as `POST /api/customer/licenses/:licenseId/machines/offline`; the answer is a page with the file as a QR code and a download, or the refusal beside the form.',
      responses: {
        200: { description: 'The file, as a QR code and a download', contentType: 'text/html' },
        302: { description: 'Not signed in: to the sign-in page' },
        400: { description: 'Refused: the reason, and the form again', contentType: 'text/html' },
        403: { description: 'HWID limit exceeded, or the license cannot be used', contentType: 'text/html' },
        404: { description: 'Not a license of the signed-in customer', contentType: 'text/html' },
      },
      handler: async ({ params, body, req, res }) => {
        const customer = signedInCustomer(req);
        if (deps.panicMode()) return home(res, req.user?.username ?? customer.name, customer);
        const { license, page } = await offlinePage(req, params.licenseId, body);
        const result = await service.activateOffline(actorOf(req), customer.id, license._id, page.form.value);
        res.render('customer-portal/offline', {
          ...page,
          error: null,
          result: await offlineResultData(license.key, result),
        });
      },
    }),
  ];
  return { routes, home };
}
export type CustomerPortalPages = ReturnType<typeof customerPortalPages>;
