import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { consoleAdminName } from '../console/admin-pages.js';
import { auditCountLimit, auditEntryData, auditListData, auditQueryOf } from './audit.page-data.js';
import { auditActions, auditResourceTypes } from './audit.table.js';
import type { createAuditService } from './audit.service.js';
import { pageNumber } from '../console/paging.js';

// The admin console's audit log pages (the JSON API is audit.routes.ts): a filtered list, newest
// first, and one entry with every field. Read only; the filters are a GET form.

const tags = ['pages'];
const day = /^\d{4}-\d{2}-\d{2}$/;
const dateField = z
  .string()
  .regex(day)
  .refine((value) => !Number.isNaN(Date.parse(value)))
  .optional()
  .catch(undefined);

/** Filters read from the address; what cannot be read is dropped instead of failing the page. */
const listQuery = z.object({
  action: z.enum(auditActions).optional().catch(undefined),
  type: z.enum(auditResourceTypes).optional().catch(undefined),
  admin: z
    .string()
    .trim()
    .max(200)
    .optional()
    .catch(undefined)
    .transform((value) => value || undefined),
  from: dateField,
  to: dateField,
  success: z.enum(['yes', 'no']).optional().catch(undefined),
  page: pageNumber,
});
const idParams = z.object({ id: z.string() });

const pageResponses = {
  200: { description: 'The page', contentType: 'text/html' },
  303: { description: 'Not signed in or two-factor pending: to `/`' },
  403: { description: 'Not an admin', contentType: 'text/html' },
};

export function auditPages(deps: { service: ReturnType<typeof createAuditService>; adminPage: Guard }): AnyRoute[] {
  const { service } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/audit-log',
      summary: 'The audit log page',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      query: listQuery,
      description:
        'Admins: audit entries newest first, 25 to a `page`, filtered by `action`, resource `type`, `admin` (provider user id), ' +
        '`from` and `to` (UTC days, both included) and `success` (`yes` or `no`).',
      responses: pageResponses,
      handler: async ({ query, req, res }) => {
        const username = consoleAdminName(req);
        const list = await service.page(auditQueryOf(query), auditCountLimit);
        res.render('audit/list', auditListData(username, list, query, await service.subjects(list.auditLogs)));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/audit-log/:id',
      summary: "One audit entry's page",
      tags,
      guard: deps.adminPage,
      answer: 'page',
      params: idParams,
      description: 'Admins: who did what, when, from where, whether it worked, and the resource before and after.',
      responses: { ...pageResponses, 404: { description: 'No such entry', contentType: 'text/html' } },
      handler: async ({ params, req, res }) => {
        const username = consoleAdminName(req);
        const entry = await service.get(params.id);
        res.render('audit/detail', auditEntryData(username, entry, await service.subjects([entry])));
      },
    }),
  ];
}
