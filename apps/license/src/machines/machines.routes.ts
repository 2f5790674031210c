import type { RequestHandler } from 'express';
import { defineRoute, withStatus, type AnswerSigner, type AnyRoute, type Guard } from '@app/http';
import { z } from 'zod';
import { actorOf } from '../common/actor.js';
import { adminFailures, notFound, one, successSchema, validationFailure } from '../common/responses.js';
import { idParams } from '../common/schemas.js';
import { callerIp, signedAnswerFields, signedErrorSchema } from '../signing/signed-answers.js';
import { machineJsonSchema } from './machines.presenter.js';
import { licenseFileJsonSchema } from '../licenses/license-file.js';
import { activateMachineSchema, borrowMachineSchema, machineParams, machineSeatSchema } from './machines.schema.js';
import type { MachinesService } from './machines.service.js';
import type { OfflineFilesService } from './offline-files.service.js';

const tags = ['machines'];
/** The license a machine answer is about: its key and product, for the client to compare. */
const seatLicense = z.object({ key: z.string(), productId: z.string() });
export const machineAnswer = one('machine', machineJsonSchema).extend({ license: seatLicense, ...signedAnswerFields });
const borrowAnswer = machineAnswer.extend({ file: licenseFileJsonSchema });
export const seatFreedAnswer = successSchema.extend({ license: seatLicense, ...signedAnswerFields });
const machinesAnswer = z.object({ success: z.literal(true), machines: z.array(machineJsonSchema) });
/** Validation's failures: the key's state, the rate limit and panic mode. */
const keyFailures = {
  400: { description: 'Validation failed, or no such license', schema: signedErrorSchema },
  403: { description: 'Expired, suspended, revoked or inactive', schema: signedErrorSchema },
  429: { description: 'Too many requests from this address', schema: signedErrorSchema },
  503: { description: 'Panic mode is on', schema: signedErrorSchema },
};
const signedNote =
  'No sign-in, like validate: the same rate limit and panic mode, and every answer carries `X-License-Signature` (see `/api/license/public-key`).';

/** Activation, heartbeat, deactivation and borrowing: applications call them like validate. */
export function publicMachineRoutes(deps: {
  machines: MachinesService;
  /** Signs their answers, failures included (see signedSender). */
  signed: AnswerSigner;
  offline: Pick<OfflineFilesService, 'borrowByKey'>;
  public: Guard;
  panicGuard: RequestHandler;
  limiter: RequestHandler;
  json: RequestHandler;
}): AnyRoute[] {
  const { machines, signed } = deps;
  const before = [deps.panicGuard, deps.limiter, deps.json];
  const answer = 'signed';
  return [
    defineRoute({
      method: 'post',
      path: '/api/license/machines/activate',
      summary: 'Activate a machine (take a seat; signed answer)',
      tags,
      guard: deps.public,
      before,
      answer,
      signer: signed,
      body: activateMachineSchema,
      description: signedNote,
      responses: {
        201: { description: 'A new machine holds a seat', schema: machineAnswer },
        200: { description: 'The fingerprint already held a seat (name and platform updated)', schema: machineAnswer },
        ...keyFailures,
        403: {
          description: 'No free seat (HWID limit exceeded), or expired, suspended, revoked or inactive',
          schema: signedErrorSchema,
        },
      },
      handler: async ({ body, req }) => {
        const { created, machine, license } = await machines.activate(body, callerIp(req.ip));
        return withStatus(created ? 201 : 200, { success: true, machine, license });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/license/machines/heartbeat',
      summary: "Keep a machine's seat (signed answer)",
      tags,
      guard: deps.public,
      before,
      answer,
      signer: signed,
      body: machineSeatSchema,
      description: `${signedNote} A floating seat's lease is renewed for heartbeatSeconds.`,
      responses: {
        200: { description: 'The machine with its new leaseExpiresAt', schema: machineAnswer },
        ...keyFailures,
        404: { description: 'Machine not found', schema: signedErrorSchema },
      },
      handler: async ({ body, req }) => {
        const { machine, license } = await machines.heartbeat(body, callerIp(req.ip));
        return { success: true, machine, license };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/license/machines/borrow',
      summary: 'Borrow a floating seat for an offline file (signed answer)',
      tags,
      guard: deps.public,
      before,
      answer,
      signer: signed,
      body: borrowMachineSchema,
      description: `${signedNote} The machine must hold a seat. On a license with floating seats its lease is extended to now + \`hours\` (never shortened; at most the license's borrowHours), and the file is bound to it and valid no longer than the lease (\`borrowedUntil\`). Without floating seats the file is bound to the machine and valid as any offline file.`,
      responses: {
        200: { description: 'The machine with its lease, and the signed file', schema: borrowAnswer },
        ...keyFailures,
        400: {
          description:
            'Validation failed, no such license, Borrowing not allowed (borrowHours 0), or Borrowing period too long (hours above borrowHours)',
          schema: signedErrorSchema,
        },
        404: { description: 'Machine not found', schema: signedErrorSchema },
      },
      handler: async ({ body }) => {
        const { machine, file, license } = await deps.offline.borrowByKey(body);
        return { success: true, machine, file, license };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/license/machines/deactivate',
      summary: 'Deactivate a machine (give its seat back; signed answer)',
      tags,
      guard: deps.public,
      before,
      answer,
      signer: signed,
      body: machineSeatSchema,
      description: signedNote,
      responses: {
        200: { description: 'The seat is free', schema: seatFreedAnswer },
        ...keyFailures,
        404: { description: 'Machine not found', schema: signedErrorSchema },
      },
      handler: async ({ body, req }) => {
        const { license } = await machines.deactivate(body, callerIp(req.ip));
        return { success: true, license };
      },
    }),
  ];
}

/** The admin's view of a license's machines, and deactivation by hand (audited). */
export function adminMachineRoutes(deps: { machines: MachinesService; admin: Guard }): AnyRoute[] {
  const { machines, admin } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/licenses/:id/machines',
      summary: "A license's machines, oldest first",
      tags,
      guard: admin,
      params: idParams,
      responses: {
        200: { description: 'The machines', schema: machinesAnswer },
        ...adminFailures,
        ...notFound('License'),
      },
      handler: async ({ params }) => ({ success: true, machines: await machines.list(params.id) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/licenses/:id/machines/:machineId',
      summary: 'Deactivate a machine of a license',
      tags,
      guard: admin,
      params: machineParams,
      audit: { action: 'delete', resource: 'license' },
      responses: {
        200: { description: 'The seat is free', schema: successSchema },
        ...adminFailures,
        ...notFound('License or machine'),
        ...validationFailure,
      },
      handler: async ({ params, req }) => {
        await machines.remove(actorOf(req), params.id, params.machineId);
        return { success: true };
      },
    }),
  ];
}
