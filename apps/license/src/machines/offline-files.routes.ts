import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { z } from 'zod';
import { actorOf } from '../common/actor.js';
import { adminFailures, errorSchema, notFound, validationFailure } from '../common/responses.js';
import { idParams } from '../common/schemas.js';
import { licenseFileJsonSchema, licenseFileQuery } from '../licenses/license-file.js';
import { offlineActivationSchema } from './activation-request.js';
import { machineJsonSchema } from './machines.presenter.js';
import type { OfflineFilesService } from './offline-files.service.js';

/** Offline activation's answer: the machine and its bound file. */
export const offlineActivationAnswer = z.object({
  success: z.literal(true),
  machine: machineJsonSchema,
  file: licenseFileJsonSchema,
});
const offlineAnswer = offlineActivationAnswer;
// Listed with the licenses' API (its tag and paths), served by the machines feature: a bound
// file borrows a seat and an offline activation takes one.
const tags = ['licenses'];

/** The admin's offline file of a license and air-gapped activation (the portal has its own). */
export function offlineFileRoutes(deps: {
  admin: Guard;
  offline: Pick<OfflineFilesService, 'download' | 'activateOffline'>;
}): AnyRoute[] {
  const { admin, offline } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/licenses/:id/file',
      summary: 'An offline license file (signed)',
      tags,
      guard: admin,
      params: idParams,
      query: licenseFileQuery,
      description:
        'A download: `{ format: "license-file/1", payload, signature, keyId }`, the signature verifiable with `/api/license/public-key`. `?fingerprint=F` binds it to a machine holding a seat.',
      responses: {
        200: { description: 'The license file', schema: licenseFileJsonSchema },
        ...adminFailures,
        ...notFound('License or machine'),
        ...validationFailure,
        403: {
          description:
            'Not an admin, two-factor verification pending, or the license is revoked, suspended, inactive or expired',
        },
      },
      handler: async ({ params, query, res }) => {
        const { file, contentDisposition } = await offline.download({ admin: true }, params.id, query.fingerprint);
        res.set({ 'Content-Disposition': contentDisposition, 'Cache-Control': 'no-store' });
        return file;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/licenses/:id/machines/offline',
      summary: 'Activate an air-gapped machine from its request code',
      tags,
      guard: admin,
      params: idParams,
      body: offlineActivationSchema,
      audit: { action: 'update', resource: 'license' },
      description:
        "`requestCode` is what the client package's `createActivationRequest` made on the machine. The machine takes a seat under the usual limits and the answer carries a file bound to it (on a license with floating seats, the file borrows the seat: borrowHours).",
      responses: {
        201: { description: 'A new machine holds a seat', schema: offlineAnswer },
        200: { description: 'The machine already held a seat', schema: offlineAnswer },
        400: {
          description:
            'Validation failed, a request code that cannot be read or is for another license, or Borrowing not allowed',
          schema: errorSchema,
        },
        ...adminFailures,
        ...notFound('License'),
        403: {
          description: 'Not an admin, HWID limit exceeded, or the license is revoked, suspended, inactive or expired',
        },
      },
      handler: async ({ params, body, req, res }) => {
        const { created, machine, file } = await offline.activateOffline(
          actorOf(req),
          { admin: true },
          params.id,
          body.requestCode,
        );
        // 201 for a new machine, 200 when it held a seat already, as activation answers.
        res
          .status(created ? 201 : 200)
          .set('Cache-Control', 'no-store')
          .json({ success: true, machine, file });
      },
    }),
  ];
}
