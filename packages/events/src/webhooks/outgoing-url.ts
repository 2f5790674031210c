import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import {
  assertHostNotLocal,
  bareHost,
  checkOutgoingHost,
  OutgoingAddressNotAllowedError,
  resolveOutgoingHost,
  type OutgoingAddressPolicy,
  type OutgoingLookup,
} from '../outgoing-address.js';

/** The text of every refusal, at save (400) and at delivery (the delivery's last error). */
export const WEBHOOK_URL_NOT_ALLOWED = 'Webhook URL not allowed';

/** A webhook URL (or the address its host resolves to) that may not be called. Never retried. */
export class WebhookUrlNotAllowedError extends OutgoingAddressNotAllowedError {
  constructor(reason: string) {
    super(WEBHOOK_URL_NOT_ALLOWED, reason);
    this.name = 'WebhookUrlNotAllowedError';
  }
}
const refuse = (reason: string) => new WebhookUrlNotAllowedError(reason);

/** The DNS lookup deliveries and the save check use (the outgoing-address one; tests inject their own). */
export type WebhookLookup = OutgoingLookup;

/** WEBHOOK_ALLOW_PRIVATE and DNS: the addresses a webhook may reach (see outgoing-address.ts). */
export type OutgoingUrlPolicy = OutgoingAddressPolicy;

/** Parses and checks what needs no DNS: the scheme, a literal address, the localhost names. */
export function parseOutgoingUrl(value: string, policy: Pick<OutgoingUrlPolicy, 'allowPrivate'>): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebhookUrlNotAllowedError('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WebhookUrlNotAllowedError(`scheme ${url.protocol} is not http or https`);
  // WHATWG parsing already turned 2130706433, 0x7f.1 and 127.1 into 127.0.0.1, and [::127.0.0.1] into [::7f00:1].
  if (!policy.allowPrivate) assertHostNotLocal(url.hostname, refuse);
  return url;
}

/**
 * The check when a URL is saved: the scheme, a literal address, and the addresses the host
 * resolves to now. A name that does not resolve (yet) is accepted; delivery checks again, after
 * its own resolution, on the address it connects to.
 */
export async function checkOutgoingUrl(value: string, policy: OutgoingUrlPolicy): Promise<void> {
  const url = parseOutgoingUrl(value, policy);
  await checkOutgoingHost(bareHost(url.hostname), policy, refuse);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect that resolves the name itself and refuses it when ANY resolved
 * address is not public, so the socket connects only to an address that was checked: a name
 * cannot resolve to a public address for the check and to a private one for the connection.
 */
export function guardedLookup(policy: OutgoingUrlPolicy) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions | number, callback: LookupCallback): void => {
    const all = typeof options === 'object' && options.all === true;
    const requested = typeof options === 'number' ? options : options.family;
    const family = requested === 4 || requested === 'IPv4' ? 4 : requested === 6 || requested === 'IPv6' ? 6 : 0;
    resolveOutgoingHost(hostname, policy, refuse)
      .then((found) => {
        const addresses = found.filter((entry) => family === 0 || entry.family === family);
        if (!addresses.length)
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        if (all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, all ? [] : ''));
  };
}
