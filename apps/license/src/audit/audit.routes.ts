import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { adminFailures, notFound, one, page, validationFailure } from '../common/responses.js';
import { auditLogJsonSchema } from './audit.presenter.js';
import { idParams } from '../common/schemas.js';
import { auditQuerySchema } from './audit.schema.js';
import type { createAuditService } from './audit.service.js';

const tags = ['audit'];

export function auditRoutes(deps: { service: ReturnType<typeof createAuditService>; admin: Guard }): AnyRoute[] {
  const { service, admin } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/audit',
      summary: 'Search the audit log',
      tags,
      guard: admin,
      query: auditQuerySchema,
      responses: {
        200: {
          description: 'A page of audit entries, newest first, and the total',
          schema: page('auditLogs', auditLogJsonSchema, true),
        },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ query }) => {
        const { auditLogs, total } = await service.list(query);
        return { success: true, auditLogs, count: auditLogs.length, total };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/audit/:id',
      summary: 'Read one audit entry',
      tags,
      guard: admin,
      params: idParams,
      responses: {
        200: { description: 'The audit entry', schema: one('auditLog', auditLogJsonSchema) },
        ...adminFailures,
        ...notFound('Audit log'),
      },
      handler: async ({ params }) => ({ success: true, auditLog: await service.get(params.id) }),
    }),
  ];
}
