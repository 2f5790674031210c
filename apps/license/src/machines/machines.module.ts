import type { RequestHandler } from 'express';
import { jsonBody, type Guard, type Logger } from '@app/http';
import type { FeatureModule } from '@app/http';
import type { ResponseSigner } from '../signing/signing.js';
import { signedSender } from '../signing/signed-answers.js';
import { adminMachineRoutes, publicMachineRoutes } from './machines.routes.js';
import { offlineFileRoutes } from './offline-files.routes.js';
import type { MachinesService } from './machines.service.js';
import type { OfflineFilesService } from './offline-files.service.js';

/** How often the sweep looks for lapsed floating seats: a lapsed machine is gone within this and one sweep's time. */
export const machineSweepEveryMs = 30_000;

/**
 * Machines for applications, on the hot path like validate (no session; signed answers, the
 * failures included), and the sweep of lapsed floating seats. The sweep claims each machine in
 * its DELETE, so it may run on every instance at once.
 */
export function publicMachinesModule(needs: {
  machines: MachinesService;
  offline: Pick<OfflineFilesService, 'borrowByKey'>;
  signer: ResponseSigner;
  now: () => Date;
  logger: Logger;
  public: Guard;
  panicGuard: RequestHandler;
  limiter: RequestHandler;
  /** Sweeps only in a real start (with a job queue); tests call the sweep themselves. */
  sweep: boolean;
}): FeatureModule {
  // A machine request's hwid is its fingerprint; its refusals carry no `valid`.
  const signed = signedSender({
    signer: needs.signer,
    now: needs.now,
    hwidField: 'fingerprint',
    logger: needs.logger,
    validFlag: false,
  });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const sweepOnce = () => {
    running = needs.machines
      .sweep()
      .catch((error: unknown) => needs.logger.error({ err: error }, 'machine sweep failed'));
  };
  return {
    name: 'machines',
    stage: 'hotPath',
    routes: publicMachineRoutes({ ...needs, signed, json: jsonBody({ limit: '16kb' }) }),
    errorHandlers: {
      path: '/api/license/machines',
      handlers: signed.errors,
    },
    jobs: () => {
      if (needs.sweep) {
        sweepOnce();
        timer = setInterval(sweepOnce, machineSweepEveryMs);
        timer.unref();
      }
      return Promise.resolve();
    },
    close: async () => {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}

/** A license's machines for the admin, and its offline file and air-gapped activation. */
export function adminMachinesModule(needs: {
  machines: MachinesService;
  offline: Pick<OfflineFilesService, 'download' | 'activateOffline'>;
  admin: Guard;
}): FeatureModule {
  return { name: 'admin-machines', routes: [...offlineFileRoutes(needs), ...adminMachineRoutes(needs)] };
}
