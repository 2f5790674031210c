import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

// The one check of where this service may connect out: webhooks and automated actions' webhooks
// (webhooks/outgoing-url.ts) and SMTP servers (notifications/email-channel.ts). Each caller
// names its refusal (`Webhook URL not allowed`, `SMTP host not allowed`); the rules are here.

/** `dns.lookup` with every address (tests inject their own). */
export type OutgoingLookup = (hostname: string) => Promise<LookupAddress[]>;
export const systemLookup: OutgoingLookup = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface OutgoingAddressPolicy {
  /** Also allow loopback, private, link-local ... addresses (WEBHOOK_ALLOW_PRIVATE, SMTP_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  lookup?: OutgoingLookup;
}

/**
 * A host (or an address it resolves to) that may not be reached. The message is the caller's
 * text; `reason` says why (for logs and delivery records, never for an answer to the browser).
 */
export class OutgoingAddressNotAllowedError extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
    this.name = 'OutgoingAddressNotAllowedError';
  }
}

/** Makes the caller's refusal from a reason. */
export type Refusal = (reason: string) => OutgoingAddressNotAllowedError;

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

/** A host without the brackets of an IPv6 literal (`[::1]` is `::1`). */
export const bareHost = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

/** The host as an address in the form sockets take (`0x7f.1` is 127.0.0.1), or undefined for a name. */
export function addressOf(host: string): LookupAddress | undefined {
  const bare = bareHost(host);
  if (!ipaddr.isValid(bare)) return undefined;
  const parsed = parseAddress(bare);
  return { address: parsed.toString(), family: parsed.kind() === 'ipv6' ? 6 : 4 };
}

const isLocalhostName = (host: string) => {
  const name = host.toLowerCase();
  return name === 'localhost' || name === 'localhost.' || name.endsWith('.localhost') || name.endsWith('.localhost.');
};

/**
 * What needs no DNS: a literal address that is not public, and the localhost names (which
 * resolve to loopback without asking DNS). Throws the caller's refusal.
 */
export function assertHostNotLocal(host: string, refuse: Refusal): void {
  const bare = bareHost(host);
  const literal = addressOf(bare);
  if (literal && !isPublicAddress(literal.address)) throw refuse(`address ${bare} is not public`);
  if (!literal && isLocalhostName(bare)) throw refuse(`host ${bare} is local`);
}

/**
 * The check when a host is saved: what needs no DNS, then every address the name resolves to
 * now. A name that does not resolve (yet) is accepted; the connection checks again, after its
 * own resolution, on the address it connects to.
 */
export async function checkOutgoingHost(host: string, policy: OutgoingAddressPolicy, refuse: Refusal): Promise<void> {
  if (policy.allowPrivate) return;
  assertHostNotLocal(host, refuse);
  const bare = bareHost(host);
  if (addressOf(bare)) return;
  let addresses: LookupAddress[];
  try {
    addresses = await (policy.lookup ?? systemLookup)(bare);
  } catch {
    return;
  }
  const refused = addresses.find((entry) => !isPublicAddress(entry.address));
  if (refused) throw refuse(`host ${bare} resolves to ${refused.address}`);
}

/**
 * The addresses to connect to: a literal as itself, a name as it resolves now, every one of
 * them checked (unless private ones are allowed). Connecting to one of these, and never
 * resolving the name again, is what keeps a name that answers differently from one question to
 * the next (DNS rebinding) away from inner addresses. Throws the caller's refusal, or the
 * lookup's error (ENOTFOUND ...).
 */
export async function resolveOutgoingHost(
  host: string,
  policy: OutgoingAddressPolicy,
  refuse: Refusal,
): Promise<LookupAddress[]> {
  if (!policy.allowPrivate) assertHostNotLocal(host, refuse);
  const bare = bareHost(host);
  const literal = addressOf(bare);
  if (literal) return [literal];
  const addresses = await (policy.lookup ?? systemLookup)(bare);
  if (!addresses.length) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${bare}`), { code: 'ENOTFOUND' });
  if (!policy.allowPrivate) {
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) throw refuse(`host ${bare} resolves to ${refused.address}`);
  }
  return addresses;
}
