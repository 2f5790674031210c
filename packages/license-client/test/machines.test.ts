import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The license service as its own tests build it: a real server on a test database.
import { buildTestApp, type TestApp } from '../../../apps/license/test/helpers.js';
import {
  activateMachine,
  createFileClockStore,
  deactivateMachine,
  heartbeat,
  heartbeatDelayMs,
  startMachineSession,
  type Machine,
  type MachineFailure,
  type MachineSessionStep,
  type MachineTimers,
} from '../src/index.js';

// Machines against a running license service: activation, heartbeats, deactivation, and the
// session that keeps a floating seat. The service's clock is this test's (`serverAhead` moves it
// forward, so leases lapse without waiting); the session's timer is fired by hand.

let t: TestApp;
let publicKey: string;
let serverAhead = 0;

beforeAll(async () => {
  t = await buildTestApp({ now: () => new Date(Date.now() + serverAhead) });
  publicKey = (await t.http.get('/api/license/public-key').expect(200)).body.publicKey;
});
afterAll(async () => {
  await t?.close();
  rmSync(clockDir, { recursive: true, force: true });
});

const floating = () => t.createLicense({ hwidLimit: 1, heartbeatSeconds: 10 });
// The clock rollback check keeps the service's latest issuedAt in a file of this test's own.
const clockDir = mkdtempSync(path.join(os.tmpdir(), 'license-client-clock-'));
const clock = createFileClockStore(path.join(clockDir, 'latest-issued-at'));
const options = (key: string, fingerprint: string) => ({ baseUrl: t.baseUrl, key, fingerprint, publicKey, clock });
const fingerprints = async (licenseId: string) => {
  const admin = await t.admin();
  const res = await t.http.get(`/api/licenses/${licenseId}/machines`).set('Cookie', admin.cookie).expect(200);
  return res.body.machines.map((machine: Machine) => machine.fingerprint) as string[];
};

/** A timer the test fires: one turn of the session at a time. */
function manualTimers() {
  const pending: Array<{ run: () => void; ms: number }> = [];
  const timers: MachineTimers = {
    setTimeout: (run, ms) => {
      const handle = { run, ms };
      pending.push(handle);
      return handle;
    },
    clearTimeout: (handle) => {
      const at = pending.indexOf(handle as never);
      if (at >= 0) pending.splice(at, 1);
    },
  };
  /** Runs the pending turn and waits until the session has scheduled the next one. */
  const fire = async () => {
    expect(pending).toHaveLength(1);
    pending.shift()!.run();
    await vi.waitFor(() => expect(pending).toHaveLength(1), { timeout: 10_000 });
  };
  return { timers, pending, fire };
}

function callbacks() {
  const errors: Array<[MachineFailure, MachineSessionStep]> = [];
  const machines: Machine[] = [];
  return {
    errors,
    machines,
    onError: (failure: MachineFailure, step: MachineSessionStep) => {
      errors.push([failure, step]);
    },
    onMachine: (machine: Machine) => {
      machines.push(machine);
    },
  };
}

describe('activateMachine, heartbeat, deactivateMachine', () => {
  it('activate (201, then 200), heartbeat with a new lease, deactivate, then 404 Machine not found', async () => {
    const license = await floating();
    const first = await activateMachine({ ...options(license.key, 'fp-1'), name: 'Office laptop', platform: 'linux' });
    expect(first).toMatchObject({
      ok: true,
      status: 201,
      machine: { fingerprint: 'fp-1', name: 'Office laptop', platform: 'linux' },
    });
    if (!first.ok) return;
    expect(heartbeatDelayMs(first.machine)).toBe(5000); // heartbeatSeconds 10, halved
    expect(await activateMachine(options(license.key, 'fp-1'))).toMatchObject({
      ok: true,
      status: 200,
      machine: { _id: first.machine._id },
    });
    expect(await activateMachine(options(license.key, 'fp-2'))).toEqual({
      ok: false,
      reason: 'refused',
      status: 403,
      error: 'HWID limit exceeded',
    });

    serverAhead += 3000;
    const beat = await heartbeat(options(license.key, 'fp-1'));
    expect(beat).toMatchObject({ ok: true, status: 200, machine: { _id: first.machine._id } });
    if (!beat.ok) return;
    expect(Date.parse(beat.machine.leaseExpiresAt!)).toBeGreaterThan(Date.parse(first.machine.leaseExpiresAt!));

    expect(await deactivateMachine(options(license.key, 'fp-1'))).toEqual({ ok: true, status: 200 });
    expect(await heartbeat(options(license.key, 'fp-1'))).toEqual({
      ok: false,
      reason: 'refused',
      status: 404,
      error: 'Machine not found',
    });
    expect(await deactivateMachine(options(license.key, 'fp-1'))).toEqual({
      ok: false,
      reason: 'refused',
      status: 404,
      error: 'Machine not found',
    });
    expect(await activateMachine(options('NO-SUCH-KEY', 'fp-1'))).toEqual({
      ok: false,
      reason: 'refused',
      status: 400,
      error: 'License not found',
    });
  });

  it('a license without floating seats: no lease, so no heartbeat delay', async () => {
    const license = await t.createLicense({ hwidLimit: 1 });
    const answer = await activateMachine(options(license.key, 'fixed-1'));
    expect(answer).toMatchObject({ ok: true, machine: { leaseExpiresAt: null } });
    if (answer.ok) expect(heartbeatDelayMs(answer.machine)).toBeUndefined();
  });

  it("refuses answers from a server without the service's key, unsigned answers, a recorded answer, and no server", async () => {
    const license = await floating();
    const genuine = await t.http
      .post('/api/license/machines/activate')
      .send({ key: license.key, fingerprint: 'fp-real' })
      .expect(201);
    const impostor = generateKeyPairSync('ed25519').privateKey;
    let mode: 'impostor' | 'unsigned' | 'replay' = 'impostor';
    const fake = http.createServer((req, res) => {
      req.resume().on('end', () => {
        const body = Buffer.from(
          mode === 'replay'
            ? genuine.text
            : JSON.stringify({ success: true, machine: { ...genuine.body.machine, fingerprint: 'fp-other' } }),
        );
        const signature =
          mode === 'replay'
            ? String(genuine.headers['x-license-signature'])
            : sign(null, body, impostor).toString('base64');
        res
          .writeHead(201, {
            'Content-Type': 'application/json',
            ...(mode === 'unsigned' ? {} : { 'X-License-Signature': signature }),
          })
          .end(body);
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    try {
      const at = { ...options(license.key, 'fp-other'), baseUrl: fakeUrl };
      expect(await activateMachine(at)).toEqual({ ok: false, reason: 'bad-signature', status: 201 });
      expect(await heartbeat(at)).toEqual({ ok: false, reason: 'bad-signature', status: 201 });
      expect(await deactivateMachine(at)).toEqual({ ok: false, reason: 'bad-signature', status: 201 });
      mode = 'unsigned';
      expect(await activateMachine(at)).toEqual({ ok: false, reason: 'missing-signature', status: 201 });
      mode = 'replay'; // the service's own answer, to another request about fp-real
      expect(await activateMachine(at)).toEqual({ ok: false, reason: 'nonce-mismatch', status: 201 });
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
    const closedPort = await new Promise<number>((resolve) => {
      const probe = http.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    expect(
      await activateMachine({ ...options(license.key, 'fp-x'), baseUrl: `http://127.0.0.1:${closedPort}` }),
    ).toMatchObject({ ok: false, reason: 'unreachable', error: expect.any(String) });
  });
});

describe('startMachineSession', () => {
  it('heartbeats every heartbeatSeconds / 2 and activates again after an admin deactivated the machine', async () => {
    const license = await floating();
    const { timers, pending, fire } = manualTimers();
    const seen = callbacks();
    const started = await startMachineSession({ ...options(license.key, 'fp-s1'), name: 'Kiosk', timers, ...seen });
    expect(started).toMatchObject({ ok: true, machine: { fingerprint: 'fp-s1', name: 'Kiosk' } });
    if (!started.ok) return;
    expect(pending.map((turn) => turn.ms)).toEqual([5000]);

    serverAhead += 5000;
    await fire();
    expect(seen.machines).toHaveLength(1);
    expect(Date.parse(seen.machines[0]!.leaseExpiresAt!)).toBeGreaterThan(Date.parse(started.machine.leaseExpiresAt!));
    expect(started.session.machine).toBe(seen.machines[0]);

    const admin = await t.admin();
    await t.http.delete(`/api/licenses/${license._id}/machines/${started.machine._id}`).set(admin.headers).expect(200);
    expect(await fingerprints(license._id)).toEqual([]);
    await fire(); // heartbeat: 404 Machine not found, so activation again
    expect(await fingerprints(license._id)).toEqual(['fp-s1']);
    expect(started.session.machine._id).not.toBe(started.machine._id);
    expect(pending.map((turn) => turn.ms)).toEqual([5000]);
    expect(seen.errors).toEqual([]);

    expect(await started.session.stop()).toEqual({ ok: true, status: 200 });
    expect(pending).toEqual([]);
    expect(await fingerprints(license._id)).toEqual([]);
  });

  it('after a lapse, takes the seat back when it is free, and reports 403 while another machine holds it', async () => {
    const license = await floating();
    const { timers, fire } = manualTimers();
    const seen = callbacks();
    const started = await startMachineSession({ ...options(license.key, 'fp-l1'), timers, ...seen });
    if (!started.ok) throw new Error(started.reason);

    serverAhead += 11_000; // past the lease: the seat is free for the next fingerprint
    expect(await activateMachine(options(license.key, 'fp-l2'))).toMatchObject({ ok: true, status: 201 });
    await fire();
    expect(seen.errors).toEqual([
      [{ ok: false, reason: 'refused', status: 403, error: 'HWID limit exceeded' }, 'activate'],
    ]);
    expect(await fingerprints(license._id)).toEqual(['fp-l2']);

    serverAhead += 11_000; // fp-l2 sends no heartbeats: its lease lapses too
    await fire();
    expect(await fingerprints(license._id)).toEqual(['fp-l1']);
    expect(seen.errors).toHaveLength(1);
    expect(started.session.machine).toMatchObject({ fingerprint: 'fp-l1' });
    await started.session.stop();
  });

  it('retries a heartbeat that could not reach the service after a quarter of the wait, then goes back to half a lease', async () => {
    const license = await floating();
    const { timers, pending, fire } = manualTimers();
    const seen = callbacks();
    let down = false;
    // A real refused connection (nothing listens on port 1) while `down`: the outage the client meets.
    const fetchThroughOutage: typeof fetch = (input, init) =>
      down ? fetch('http://127.0.0.1:1/', init) : fetch(input, init);
    const started = await startMachineSession({
      ...options(license.key, 'fp-out'),
      timers,
      fetch: fetchThroughOutage,
      ...seen,
    });
    if (!started.ok) throw new Error(started.reason);
    expect(pending.map((turn) => turn.ms)).toEqual([5000]);

    down = true;
    await fire();
    expect(seen.errors.map(([failure, step]) => [failure.reason, step])).toEqual([['unreachable', 'heartbeat']]);
    expect(pending.map((turn) => turn.ms)).toEqual([1250]);

    down = false;
    serverAhead += 6250;
    await fire();
    expect(seen.machines).toHaveLength(1);
    expect(pending.map((turn) => turn.ms)).toEqual([5000]);
    expect(await fingerprints(license._id)).toEqual(['fp-out']);
    await started.session.stop();
  });

  it('stop() during a heartbeat deactivates after it, once, and schedules nothing more', async () => {
    const license = await floating();
    const { timers, pending } = manualTimers();
    const seen = callbacks();
    const started = await startMachineSession({ ...options(license.key, 'fp-st'), timers, ...seen });
    if (!started.ok) throw new Error(started.reason);
    pending.shift()!.run(); // the heartbeat is under way
    const stopped = started.session.stop();
    expect(started.session.stop()).toBe(stopped);
    expect(await stopped).toEqual({ ok: true, status: 200 });
    expect(pending).toEqual([]);
    expect(await fingerprints(license._id)).toEqual([]);
    expect(seen.errors).toEqual([]);
  });

  it('without floating seats: no heartbeats; stop() deactivates; a second stop answers the same', async () => {
    const license = await t.createLicense({ hwidLimit: 1 });
    const { timers, pending } = manualTimers();
    const started = await startMachineSession({ ...options(license.key, 'fp-fixed'), timers });
    if (!started.ok) throw new Error(started.reason);
    expect(pending).toEqual([]);
    expect(await fingerprints(license._id)).toEqual(['fp-fixed']);
    expect(await started.session.stop()).toEqual({ ok: true, status: 200 });
    expect(await started.session.stop()).toEqual({ ok: true, status: 200 });
    expect(await fingerprints(license._id)).toEqual([]);
  });

  it("answers the first activation's failure and starts nothing", async () => {
    const license = await floating();
    await activateMachine(options(license.key, 'holder'));
    const { timers, pending } = manualTimers();
    expect(await startMachineSession({ ...options(license.key, 'late'), timers })).toEqual({
      ok: false,
      reason: 'refused',
      status: 403,
      error: 'HWID limit exceeded',
    });
    expect(pending).toEqual([]);
  });

  it('with the default timers, the heartbeat timer does not keep the process alive, and stop() clears it', async () => {
    const license = await floating();
    const handles: NodeJS.Timeout[] = [];
    const cleared: unknown[] = [];
    const timers: MachineTimers = {
      setTimeout: (run, ms) => {
        const handle = setTimeout(run, ms);
        handles.push(handle);
        return handle;
      },
      clearTimeout: (handle) => {
        cleared.push(handle);
        clearTimeout(handle as NodeJS.Timeout);
      },
    };
    const started = await startMachineSession({ ...options(license.key, 'fp-real-timer'), timers });
    if (!started.ok) throw new Error(started.reason);
    expect(handles).toHaveLength(1);
    expect(handles[0]!.hasRef()).toBe(false);
    await started.session.stop();
    expect(cleared).toEqual(handles);
  });
});
