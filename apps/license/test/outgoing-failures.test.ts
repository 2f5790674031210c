import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import {
  eventually,
  startHttpRecorder,
  startSmtpStandIn,
  type HttpRecorder,
  type SmtpStandIn,
} from '@app/events/testing';
import { documentOf, textOf } from '@app/ui/testing/dom';
import { createLicenseLogger } from '../src/common/logger.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Real local servers for each way a connection can go: nothing listening (refused), a server
// that resets every connection, one that accepts and never says a word (timeout), and a working one.

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A port that was just free: nothing listens there. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface TcpServer {
  port: number;
  close(): Promise<void>;
}

async function tcpServer(onConnection: (socket: Socket) => void): Promise<TcpServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  const port = await listen(server);
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resets each connection (RST) as soon as it is made. */
const resettingServer = () => tcpServer((socket) => socket.resetAndDestroy());
/** Accepts and stays silent: the other side waits until its own timeout. */
const silentServer = () => tcpServer(() => {});

function logCapture() {
  const text: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text.push(String(chunk));
      callback();
    },
  });
  return { logger: createLicenseLogger({ level: 'info', destination }), all: () => text.join('') };
}

const portDetails = /ECONN|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|timed out|refused|reset|socket hang up/i;

describe(`outgoing failures say nothing of ports (${testDatabaseBackend()})`, () => {
  const log = logCapture();
  const timing = { timeoutMs: 1_000, answerAfterMs: 1_500 };
  let t: TestApp;
  let admin: Session;
  let receiver: HttpRecorder;
  let smtp: SmtpStandIn;
  let resetting: TcpServer;
  let silent: TcpServer;

  beforeAll(async () => {
    [receiver, smtp, resetting, silent] = await Promise.all([
      startHttpRecorder(),
      startSmtpStandIn(),
      resettingServer(),
      silentServer(),
    ]);
    t = await buildTestApp({
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1000', SMTP_ALLOW_PRIVATE: 'true' },
      logger: log.logger,
      testEmailTiming: timing,
    });
    admin = await t.admin();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await Promise.all([receiver?.close(), smtp?.close(), resetting?.close(), silent?.close()]);
  });

  /** A test delivery to `url` through the API; answers the delivery once its first attempt is recorded. */
  async function testDeliveryTo(url: string) {
    const endpoint = await t.http.post('/api/webhooks/endpoints').set(admin.headers).send({ url, events: [] });
    expect(endpoint.status, endpoint.text).toBe(201);
    const id = (endpoint.body.endpoint as { _id: string })._id;
    const sent = await t.http.post(`/api/webhooks/endpoints/${id}/test`).set(admin.headers);
    expect(sent.status, sent.text).toBe(200);
    const deliveryId = sent.body.deliveryId as string;
    return eventually(async () => {
      const list = await t.http.get('/api/webhooks/deliveries?limit=100').set('Cookie', admin.cookie);
      const delivery = (list.body.deliveries as Array<Record<string, unknown>>).find((row) => row._id === deliveryId);
      const attempted = delivery && (delivery.status === 'delivered' || delivery.lastError !== null);
      return attempted ? delivery : undefined;
    });
  }

  it('webhook deliveries record "connection failed" for a closed port, a reset and a timeout; the API, the rows and the console show nothing more', async () => {
    const urls = {
      closed: `http://127.0.0.1:${await closedPort()}/hook`,
      reset: `http://127.0.0.1:${resetting.port}/hook`,
      silent: `http://127.0.0.1:${silent.port}/hook`,
    };
    const deliveries = await Promise.all(Object.values(urls).map((url) => testDeliveryTo(url)));
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ lastError: 'connection failed', lastResponseCode: null });
      expect(delivery.status).not.toBe('delivered');
      expect(JSON.stringify(delivery)).not.toMatch(portDetails);
    }
    const { rows } = await t.database.pool.query<{ last_error: string }>(
      'SELECT DISTINCT last_error FROM webhook_deliveries WHERE last_error IS NOT NULL',
    );
    expect(rows.map((row) => row.last_error)).toEqual(['connection failed']);
    const page = await t.http.get('/webhooks/deliveries').set('Cookie', admin.cookie);
    expect(textOf(page.text)).toContain('connection failed');
    expect(textOf(page.text)).not.toMatch(portDetails);
    // The operator's log keeps the reason.
    expect(log.all()).toMatch(/"networkError":"[^"]*ECONNREFUSED/);

    const working = await testDeliveryTo(`${receiver.url}/hook`);
    expect(working).toMatchObject({ status: 'delivered', lastError: null, lastResponseCode: 200 });
  });

  const post = (path: string, fields: Record<string, string>) =>
    t.http
      .post(path)
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: admin.csrfToken, ...fields });

  /** Points the email channel at 127.0.0.1:`port`, sends a test email, and answers how long the answer took and what the page says. */
  async function testEmailAt(port: number) {
    const saved = await post('/webhooks/channels/email', {
      enabled: 'on',
      host: '127.0.0.1',
      port: String(port),
      from: 'Licenses <licenses@example.com>',
      to: 'ops@example.com',
    });
    expect(saved.status, saved.text.slice(0, 300)).toBe(303);
    const started = performance.now();
    const tested = await post('/webhooks/channels/email/test', { recipient: 'tester@example.com' });
    const ms = performance.now() - started;
    expect(tested.status).toBe(303);
    const page = await t.http.get('/webhooks/channels').set('Cookie', admin.cookie);
    const flash = [...documentOf(page.text).querySelectorAll('.alert')]
      .map((alert) => alert.textContent?.trim() ?? '')
      .find((text) => text.startsWith('Test email'));
    return { ms, flash, text: textOf(page.text) };
  }

  it('a test email answers after the same fixed time whether the port is closed, resets, stays silent or delivers', async () => {
    const before = smtp.mails.length;
    const results = {
      closed: await testEmailAt(await closedPort()),
      reset: await testEmailAt(resetting.port),
      silent: await testEmailAt(silent.port),
      working: await testEmailAt(smtp.port),
    };
    expect(smtp.mails.length).toBe(before + 1);
    for (const [name, result] of Object.entries(results)) {
      expect(result.ms, name).toBeGreaterThanOrEqual(timing.answerAfterMs - 5);
      // The fixed time, plus what the request costs around it (a busy test machine).
      expect(result.ms, name).toBeLessThan(timing.answerAfterMs + 1_000);
      expect(result.text, name).not.toMatch(portDetails);
    }
    expect(results.working.flash).toBe('Test email sent to tester@example.com.');
    for (const name of ['closed', 'reset', 'silent'] as const)
      expect(results[name].flash, name).toBe('Test email failed: the message could not be delivered.');
  });
});
