import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../src/index.js';

// Which addresses an outgoing connection (a webhook, an SMTP server) may reach: the many ways
// of writing an inner address, and ordinary public ones.

describe('addresses that are not public', () => {
  it.each([
    // IPv4: loopback, private, link-local (cloud metadata), multicast, unspecified, shared, broadcast, reserved.
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['240.0.0.1', 'reserved'],
    // IPv6 loopback and unspecified, however written.
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback, in full'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback, zero-padded'],
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified, in full'],
    // IPv4-compatible (::/96): the IPv4 address in the last 32 bits.
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hexadecimal'],
    ['0:0:0:0:0:0:127.0.0.1', 'IPv4-compatible loopback, in full'],
    ['::10.0.0.1', 'IPv4-compatible private'],
    ['::169.254.169.254', 'IPv4-compatible link-local'],
    ['::8.8.8.8', 'IPv4-compatible, deprecated even for a public address'],
    // IPv4-mapped (::ffff:0:0/96): judged as the IPv4 address.
    ['::ffff:127.0.0.1', 'mapped loopback'],
    ['::ffff:7f00:1', 'mapped loopback, hexadecimal'],
    ['::FFFF:7F00:1', 'mapped loopback, upper case'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'mapped loopback, in full'],
    ['0:0:0:0:0:ffff:7f00:0001', 'mapped loopback, zero-padded'],
    ['::ffff:10.0.0.1', 'mapped private'],
    ['::ffff:a00:1', 'mapped private, hexadecimal'],
    ['::ffff:169.254.169.254', 'mapped link-local'],
    ['::ffff:a9fe:a9fe', 'mapped link-local, hexadecimal'],
    ['::ffff:0.0.0.0', 'mapped unspecified'],
    // IPv4-translated (::ffff:0:0:0/96).
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['::ffff:0:808:808', 'IPv4-translated'],
    // NAT64: the well-known prefix and the local-use one, whatever address they carry.
    ['64:ff9b::7f00:1', 'NAT64 loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64 loopback, dotted'],
    ['64:ff9b::a00:1', 'NAT64 private'],
    ['64:ff9b::808:808', 'NAT64 of a public address'],
    ['64:ff9b:1::7f00:1', 'local-use NAT64 (64:ff9b:1::/48)'],
    ['64:ff9b:1:abcd::1', 'local-use NAT64'],
    // 6to4 and Teredo carry an IPv4 address (Teredo's obfuscated).
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a00:1::1', '6to4 of a private address'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001::1', 'Teredo'],
    // Local scopes.
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['FE80::1', 'link-local, upper case'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local (deprecated)'],
    ['feff::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'global multicast'],
    // Other ranges outside 2000::/3, or named inside it.
    ['100::1', 'discard'],
    ['1::1', 'unassigned, outside global unicast'],
    ['4000::1', 'unassigned, outside global unicast'],
    ['5f00::1', 'segment routing'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation (RFC 9637)'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'ORCHID'],
    ['2001:20::1', 'ORCHIDv2'],
    // Not an address at all.
    ['127.1', 'loopback, short form'],
    ['2130706433', 'loopback as one number'],
    ['0x7f.1', 'loopback, hexadecimal short form'],
    ['', 'empty'],
    ['localhost', 'a name'],
    ['::ffff:127.0.0.1.1', 'malformed'],
  ])('%s (%s) is refused', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('public addresses', () => {
  it.each([
    ['8.8.8.8', 'IPv4'],
    ['93.184.215.14', 'IPv4'],
    ['1.1.1.1', 'IPv4'],
    ['172.32.0.1', 'just past 172.16/12'],
    ['100.128.0.1', 'just past 100.64/10'],
    ['11.0.0.1', 'just past 10/8'],
    ['2606:4700:4700::1111', 'global unicast'],
    ['2001:4860:4860::8888', 'global unicast'],
    ['2a00:1450:4001:80b::200e', 'global unicast'],
    ['2A00:1450:4001:80B::200E', 'global unicast, upper case'],
    ['3ffe::1', 'global unicast'],
    ['::ffff:8.8.8.8', 'mapped public IPv4'],
    ['::ffff:808:808', 'mapped public IPv4, hexadecimal'],
    ['0:0:0:0:0:ffff:8.8.8.8', 'mapped, in full'],
  ])('%s (%s) is allowed', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
