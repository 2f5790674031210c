import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real local HTTP server that records every request and answers with `respond` (200 `{}` by default). */
export async function startHttpRecorder(
  respond?: (request: RecordedRequest, index: number, res: ServerResponse) => void,
) {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      if (respond) respond(request, requests.length - 1, res);
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    /** Parsed JSON bodies of the requests for one webhook event. */
    events: (event: string) =>
      requests.map((request) => JSON.parse(request.body)).filter((body) => body.event === event),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type HttpRecorder = Awaited<ReturnType<typeof startHttpRecorder>>;

/** Polls until `check` returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A local server standing in for Twilio's Messages API: answers every request as a queued message. */
export function startTwilioStandIn() {
  return startHttpRecorder((_request, _index, res) => {
    res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify({ sid: 'SM1', status: 'queued' }));
  });
}

/** A local server standing in for Telegram's Bot API: answers every request as a sent message. */
export function startTelegramStandIn() {
  return startHttpRecorder((_request, _index, res) => {
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ ok: true, result: { message_id: 1, date: 0, chat: { id: 1, type: 'private' } } }));
  });
}
