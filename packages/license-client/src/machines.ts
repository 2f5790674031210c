import { randomUUID } from 'node:crypto';
import { clockRolledBack, createFileClockStore, type ClockStore } from './clock.js';
import {
  answersRequest,
  expectedRequest,
  isRecord,
  isString,
  verifySignedBody,
  type PublicKeys,
  type SignedBodyFailure,
} from './signed.js';

// Machines: an application takes a seat of its license (activate), keeps a floating seat with
// heartbeats, and gives it back (deactivate). Every answer is signed like validation's, echoes
// the random nonce the request carried (a recorded answer, to this machine or another, is
// refused) and states the key and fingerprint it answers (an answer to a request a proxy changed
// on the way is refused).

/** A machine as the service answers it. */
export interface Machine {
  _id: string;
  license: string;
  fingerprint: string;
  name: string | null;
  platform: string | null;
  lastIp: string | null;
  activatedAt: string;
  lastSeenAt: string;
  /** When a floating seat lapses without a heartbeat; null when the license's seats do not float. */
  leaseExpiresAt: string | null;
}

export interface MachineRequestOptions {
  /** The license service, e.g. `https://licenses.example.com` (no trailing `/api`). */
  baseUrl: string;
  key: string;
  /** This machine's hardware id (1–200 characters). */
  fingerprint: string;
  /** The service's public key (PEM or KeyObject), shipped with the application; or several, after a key rotation. */
  publicKey: PublicKeys;
  /** The application's product: an answer about another product's license is refused (`wrong-product`). */
  productId?: string;
  /**
   * Where the latest verified issuedAt is kept, for the clock rollback check (default: the file
   * of `createFileClockStore()`); `false`: no check.
   */
  clock?: ClockStore | false;
  /** The local clock (default: the system's), for the rollback check. */
  now?: () => Date;
  /** Gives up on a request after this long (default 10,000 ms): `reason: 'unreachable'`. */
  timeoutMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

export interface ActivateMachineOptions extends MachineRequestOptions {
  name?: string;
  platform?: string;
}

export type MachineFailureReason =
  | SignedBodyFailure // missing-signature, bad-signature (not the service's key), unknown-key, malformed
  | 'unreachable' // no answer: network error or timeout (`error` has the message)
  | 'nonce-mismatch' // an authentic answer to another request (a replay)
  | 'wrong-request' // an authentic answer about another key or fingerprint than the request sent (a proxy changed it)
  | 'wrong-machine' // an authentic answer about another fingerprint
  | 'wrong-product' // an authentic answer about a license of another product than `productId`
  | 'clock-rolled-back' // the local clock is more than 24 h earlier than the latest issuedAt verified
  | 'refused'; // authentic, and the service said no: `status` and `error` (e.g. 403 HWID limit exceeded, 404 Machine not found)

export interface MachineFailure {
  ok: false;
  reason: MachineFailureReason;
  /** The HTTP status, when an answer came. */
  status?: number;
  /** The service's `error` text (reason `refused`), or the network error's message (`unreachable`). */
  error?: string;
}

export type MachineResult = { ok: true; status: number; machine: Machine } | MachineFailure;
export type DeactivateResult = { ok: true; status: number } | MachineFailure;

const nullableString = (value: unknown) => value === null || isString(value);

function asMachine(value: unknown): Machine | undefined {
  if (!isRecord(value)) return undefined;
  const { _id, license, fingerprint, name, platform, lastIp, activatedAt, lastSeenAt, leaseExpiresAt } = value;
  if (![_id, license, fingerprint, activatedAt, lastSeenAt].every(isString)) return undefined;
  if (![name, platform, lastIp, leaseExpiresAt].every(nullableString)) return undefined;
  return { _id, license, fingerprint, name, platform, lastIp, activatedAt, lastSeenAt, leaseExpiresAt } as Machine;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** POSTs to /api/license/machines/<action>; answers the verified body of a 2xx, or the failure. */
async function post(
  options: MachineRequestOptions,
  action: 'activate' | 'heartbeat' | 'deactivate',
  payload: Record<string, unknown>,
): Promise<{ ok: true; status: number; body: Record<string, unknown> } | MachineFailure> {
  const send = options.fetch ?? fetch;
  let status: number;
  let signature: string | null;
  let bytes: Buffer;
  let keyId: string | null;
  const nonce = randomUUID();
  try {
    const res = await send(`${options.baseUrl.replace(/\/+$/, '')}/api/license/machines/${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...payload, nonce }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    status = res.status;
    signature = res.headers.get('x-license-signature');
    keyId = res.headers.get('x-license-key-id');
    bytes = Buffer.from(await res.arrayBuffer()); // the signature covers these bytes
  } catch (error) {
    return { ok: false, reason: 'unreachable', error: messageOf(error) };
  }
  const signed = verifySignedBody(bytes, signature, options.publicKey, keyId);
  if (!signed.ok) return { ok: false, reason: signed.reason, status };
  const { body } = signed;
  if (body.nonce !== nonce) return { ok: false, reason: 'nonce-mismatch', status };
  const sent = { key: options.key, hwid: options.fingerprint };
  if (!answersRequest(body, expectedRequest(sent, nonce))) return { ok: false, reason: 'wrong-request', status };
  const store = options.clock === undefined ? createFileClockStore() : options.clock;
  const now = options.now?.() ?? new Date();
  if (store && (await clockRolledBack(store, body.issuedAt, now)))
    return { ok: false, reason: 'clock-rolled-back', status };
  if (status < 200 || status > 299 || body.success !== true) {
    return { ok: false, reason: 'refused', status, ...(isString(body.error) ? { error: body.error } : {}) };
  }
  if (options.productId !== undefined && (!isRecord(body.license) || body.license.productId !== options.productId))
    return { ok: false, reason: 'wrong-product', status };
  return { ok: true, status, body };
}

async function machineRequest(
  options: MachineRequestOptions,
  action: 'activate' | 'heartbeat',
  payload: Record<string, unknown>,
): Promise<MachineResult> {
  const answer = await post(options, action, payload);
  if (!answer.ok) return answer;
  const machine = asMachine(answer.body.machine);
  if (!machine) return { ok: false, reason: 'malformed', status: answer.status };
  if (machine.fingerprint !== options.fingerprint) return { ok: false, reason: 'wrong-machine', status: answer.status };
  return { ok: true, status: answer.status, machine };
}

/** Takes a seat for this fingerprint (201, or 200 when it already holds one); 403 `HWID limit exceeded` without a free seat. */
export function activateMachine(options: ActivateMachineOptions): Promise<MachineResult> {
  const { key, fingerprint, name, platform } = options;
  return machineRequest(options, 'activate', {
    key,
    fingerprint,
    ...(name !== undefined ? { name } : {}),
    ...(platform !== undefined ? { platform } : {}),
  });
}

/** Renews a floating seat's lease; 404 `Machine not found` when the fingerprint holds no seat (deactivated, or lapsed). */
export function heartbeat(options: MachineRequestOptions): Promise<MachineResult> {
  return machineRequest(options, 'heartbeat', { key: options.key, fingerprint: options.fingerprint });
}

/** Gives the seat back; 404 `Machine not found` when the fingerprint held none. */
export async function deactivateMachine(options: MachineRequestOptions): Promise<DeactivateResult> {
  const answer = await post(options, 'deactivate', { key: options.key, fingerprint: options.fingerprint });
  return answer.ok ? { ok: true, status: answer.status } : answer;
}

/**
 * How long to wait before the next heartbeat: half the lease. The lease is the license's
 * heartbeatSeconds, read as leaseExpiresAt - lastSeenAt (both the service's clock, so a wrong
 * local clock does not matter). None when the seat does not float.
 */
export function heartbeatDelayMs(machine: Machine): number | undefined {
  if (machine.leaseExpiresAt === null) return undefined;
  const lease = Date.parse(machine.leaseExpiresAt) - Date.parse(machine.lastSeenAt);
  return Number.isFinite(lease) && lease > 0 ? Math.max(1000, lease / 2) : 1000;
}

export interface MachineTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export type MachineSessionStep = 'activate' | 'heartbeat' | 'deactivate';

export interface MachineSessionOptions extends ActivateMachineOptions {
  /** Every failure after the first activation: a heartbeat, an activation again, or the deactivation at stop. */
  onError?: (failure: MachineFailure, step: MachineSessionStep) => void;
  /** Every verified machine after the first: heartbeats (the new lease) and activations again. */
  onMachine?: (machine: Machine) => void;
  /** Let the heartbeat timer keep the process alive (default false: the timer is unref'd). */
  keepAlive?: boolean;
  /** Default: the global setTimeout and clearTimeout. */
  timers?: MachineTimers;
}

export interface MachineSession {
  /** The machine as the latest verified answer states it. */
  readonly machine: Machine;
  /** Stops the heartbeats and deactivates (once; later calls answer the same). Never rejects. */
  stop(): Promise<DeactivateResult>;
}

export type MachineSessionStart = { ok: true; machine: Machine; session: MachineSession } | MachineFailure;

const globalTimers: MachineTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Activates this machine, then, when the license's seats float, sends a heartbeat every
 * heartbeatSeconds / 2 and activates again after 404 `Machine not found` (an admin deactivated
 * the machine, or its lease lapsed). A failed heartbeat is reported and tried again at the next
 * turn. Answers the first activation's failure without starting anything.
 */
export async function startMachineSession(options: MachineSessionOptions): Promise<MachineSessionStart> {
  const first = await activateMachine(options);
  if (!first.ok) return first;
  const timers = options.timers ?? globalTimers;
  let machine = first.machine;
  let delay = heartbeatDelayMs(machine);
  let timer: unknown;
  let inFlight: Promise<void> | undefined;
  let stopping: Promise<DeactivateResult> | undefined;

  const report = (failure: MachineFailure, step: MachineSessionStep) => {
    // The application's callback must not end the heartbeats.
    try {
      options.onError?.(failure, step);
    } catch {
      /* ignored */
    }
  };
  const accept = (next: Machine) => {
    machine = next;
    delay = heartbeatDelayMs(next);
    try {
      options.onMachine?.(next);
    } catch {
      /* ignored */
    }
  };

  /** Answers whether the seat was kept (or taken again); a failure is retried sooner. */
  async function beat(): Promise<boolean> {
    const answer = await heartbeat(options);
    if (stopping) return true;
    if (answer.ok) {
      accept(answer.machine);
      return true;
    }
    if (answer.reason !== 'refused' || answer.status !== 404) {
      report(answer, 'heartbeat');
      return false;
    }
    const again = await activateMachine(options);
    if (again.ok) {
      accept(again.machine);
      return true;
    }
    report(again, 'activate');
    return false;
  }

  // After a failed heartbeat (service unreachable, an error answer), the next try comes after a
  // quarter of the usual wait: a lease is two waits long, so a short outage is retried three
  // times before the seat lapses instead of once when it already has.
  function schedule(wait = delay) {
    if (stopping || wait === undefined) return;
    timer = timers.setTimeout(() => {
      timer = undefined;
      let kept = false;
      inFlight = beat()
        .then(
          (ok) => {
            kept = ok;
          },
          () => undefined,
        )
        .finally(() => {
          inFlight = undefined;
          schedule(kept || delay === undefined ? delay : Math.max(1000, delay / 4));
        });
    }, wait);
    if (!options.keepAlive) (timer as { unref?: () => void } | undefined)?.unref?.();
  }
  schedule();

  const session: MachineSession = {
    get machine() {
      return machine;
    },
    stop() {
      stopping ??= (async () => {
        if (timer !== undefined) timers.clearTimeout(timer);
        timer = undefined;
        await inFlight; // a heartbeat or activation under way ends first, so the deactivation comes last
        const result = await deactivateMachine(options);
        if (!result.ok) report(result, 'deactivate');
        return result;
      })();
      return stopping;
    },
  };
  return { ok: true, machine, session };
}
