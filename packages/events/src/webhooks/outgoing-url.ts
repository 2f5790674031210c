import dns from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** The text of every refusal, at save (400) and at delivery (the delivery's last error). */
export const WEBHOOK_URL_NOT_ALLOWED = 'Webhook URL not allowed';

/** A webhook URL (or the address its host resolves to) that may not be called. Never retried. */
export class WebhookUrlNotAllowedError extends Error {
  constructor(readonly reason: string) {
    super(WEBHOOK_URL_NOT_ALLOWED);
    this.name = 'WebhookUrlNotAllowedError';
  }
}

/** `dns.lookup` with every address (the shape the delivery and the save check use; tests inject their own). */
export type WebhookLookup = (hostname: string) => Promise<LookupAddress[]>;
export const systemLookup: WebhookLookup = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface OutgoingUrlPolicy {
  /** WEBHOOK_ALLOW_PRIVATE: also allow loopback, private, link-local ... addresses (local receivers). */
  allowPrivate: boolean;
  lookup?: WebhookLookup;
}

/** Global unicast: every IPv6 address that is routed on the internet lies in it. */
const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * An address as sockets read it. ipaddr.js reads `::a.b.c.d` as the IPv4-mapped ::ffff:a.b.c.d;
 * it is the IPv4-compatible ::/96 address (RFC 4291), as URLs and sockets take it, and `0::`
 * keeps ipaddr.js from rewriting it.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  return ipaddr.parse(/^::\d+\./.test(address) ? `0${address}` : address);
}

/**
 * Only ordinary public unicast addresses may be called. ipaddr.js names every other IPv4 range:
 * loopback, private (10/8, 172.16/12, 192.168/16), linkLocal (169.254/16), multicast,
 * unspecified (0/8), carrierGradeNat (100.64/10), broadcast, reserved. An IPv6 address is public
 * only inside global unicast 2000::/3 and outside the ranges ipaddr.js names there (6to4,
 * Teredo, documentation ...): every other spelling, ::7f00:1 (`[::127.0.0.1]`, IPv4-compatible),
 * 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64), fec0::/10 (site-local), fc00::/7, fe80::/10, carries
 * or reaches an inner address, and ipaddr.js calls several of them plain "unicast". An
 * IPv4-mapped address (::ffff:7f00:1, however it is written) is judged as the IPv4 address it maps.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = parseAddress(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().range() === 'unicast';
  return ipv6.match(globalUnicast) && ipv6.range() === 'unicast';
}

/** The URL's host as an address or name: `[::1]` loses its brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');
const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.';

/** Parses and checks what needs no DNS: the scheme, a literal address, the localhost names. */
export function parseOutgoingUrl(value: string, policy: Pick<OutgoingUrlPolicy, 'allowPrivate'>): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebhookUrlNotAllowedError('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookUrlNotAllowedError(`scheme ${url.protocol} is not http or https`);
  if (policy.allowPrivate) return url;
  // WHATWG parsing already turned 2130706433, 0x7f.1 and 127.1 into 127.0.0.1.
  const host = hostOf(url);
  if (ipaddr.isValid(host) && !isPublicAddress(host)) throw new WebhookUrlNotAllowedError(`address ${host} is not public`);
  if (isLocalhostName(host.toLowerCase())) throw new WebhookUrlNotAllowedError(`host ${host} is local`);
  return url;
}

/**
 * The check when a URL is saved: the scheme, a literal address, and the addresses the host
 * resolves to now. A name that does not resolve (yet) is accepted; delivery checks again, after
 * its own resolution, on the address it connects to.
 */
export async function checkOutgoingUrl(value: string, policy: OutgoingUrlPolicy): Promise<void> {
  const url = parseOutgoingUrl(value, policy);
  const host = hostOf(url);
  if (policy.allowPrivate || ipaddr.isValid(host)) return;
  let addresses: LookupAddress[];
  try {
    addresses = await (policy.lookup ?? systemLookup)(host);
  } catch {
    return;
  }
  const refused = addresses.find((entry) => !isPublicAddress(entry.address));
  if (refused) throw new WebhookUrlNotAllowedError(`host ${host} resolves to ${refused.address}`);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect that resolves the name itself and refuses it when ANY resolved
 * address is not public, so the socket connects only to an address that was checked: a name
 * cannot resolve to a public address for the check and to a private one for the connection.
 */
export function guardedLookup(policy: OutgoingUrlPolicy) {
  const lookup = policy.lookup ?? systemLookup;
  return (hostname: string, options: LookupOneOptions | LookupAllOptions | number, callback: LookupCallback): void => {
    const all = typeof options === 'object' && options.all === true;
    const requested = typeof options === 'number' ? options : options.family;
    const family = requested === 4 || requested === 'IPv4' ? 4 : requested === 6 || requested === 'IPv6' ? 6 : 0;
    lookup(hostname).then((found) => {
      const addresses = found.filter((entry) => family === 0 || entry.family === family);
      if (!addresses.length) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      if (!policy.allowPrivate) {
        const refused = addresses.find((entry) => !isPublicAddress(entry.address));
        if (refused) throw new WebhookUrlNotAllowedError(`host ${hostname} resolves to ${refused.address}`);
      }
      if (all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    }).catch((error: NodeJS.ErrnoException) => callback(error, all ? [] : ''));
  };
}
