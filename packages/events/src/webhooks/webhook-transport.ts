import http from 'node:http';
import https from 'node:https';
import { guardedLookup, parseOutgoingUrl, type OutgoingUrlPolicy } from './outgoing-url.js';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** The receiver's answer; any status is returned (the caller judges it), a network failure throws. */
export interface WebhookResponse {
  status: number;
}

/** HTTP out for webhook deliveries; tests may inject their own, the default is `createWebhookTransport`. */
export type WebhookTransport = (request: WebhookRequest) => Promise<WebhookResponse>;

/**
 * POSTs with node's http/https on keep-alive agents whose sockets connect only to checked
 * addresses (see `guardedLookup`); a literal address is checked before the request, because
 * net.connect does not look literals up. Redirects are never followed (node's client does not
 * follow them): the 3xx is the answer.
 */
export function createWebhookTransport(
  policy: OutgoingUrlPolicy & { maxSockets?: number },
): WebhookTransport & { close(): void } {
  const lookup = guardedLookup(policy);
  const agentOptions = { keepAlive: true, maxSockets: policy.maxSockets ?? 16, lookup } as http.AgentOptions;
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  const transport = (request: WebhookRequest) =>
    new Promise<WebhookResponse>((resolve, reject) => {
      // A refused URL throws here, which rejects the promise with that error.
      const url = parseOutgoingUrl(request.url, policy);
      const client = url.protocol === 'https:' ? https : http;
      const req = client.request(
        url,
        {
          method: 'POST',
          agent: agents[url.protocol as 'http:' | 'https:'],
          headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
          timeout: request.timeoutMs,
        },
        (res) => {
          res.resume(); // the body is not needed; reading it frees the socket for the next delivery
          res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
          res.on('error', reject);
        },
      );
      // The whole exchange, not only socket inactivity, is bounded by the timeout.
      const deadline = setTimeout(
        () => req.destroy(new Error(`timed out after ${request.timeoutMs} ms`)),
        request.timeoutMs,
      );
      req.on('close', () => clearTimeout(deadline));
      req.on('timeout', () => req.destroy(new Error(`timed out after ${request.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(request.body);
    });
  return Object.assign(transport, {
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  });
}
