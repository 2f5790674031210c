import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkOutgoingUrl,
  createWebhookTransport,
  minimumRetrySpanMs,
  scaleRetrySchedule,
  webhookRetrySchedule,
  WebhookUrlNotAllowedError,
  type WebhookLookup,
} from '../src/index.js';
import { startHttpRecorder, type HttpRecorder } from '../src/testing/index.js';

/** DNS as the tests want it: these names resolve to these addresses, nothing else resolves. */
const fakeDns =
  (table: Record<string, string[]>): WebhookLookup =>
  (hostname) => {
    const addresses = table[hostname];
    if (!addresses)
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(
      addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };

describe('outgoing webhook addresses', () => {
  it.each([
    'http://127.0.0.1/',
    'http://localhost:5432',
    'http://LOCALHOST./x',
    'http://api.localhost/',
    'http://169.254.169.254/latest',
    'http://[::1]/',
    'http://10.0.0.1',
    'http://0.0.0.0',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://[::10.0.0.1]:8080/',
    'http://[fec0::1]/',
    'http://[2002:7f00:1::]/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'http://[::]/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[ff02::1]/',
    'ftp://example.com/',
    'file:///etc/passwd',
    'gopher://example.com/',
    'not a url',
  ])('%s is refused when saved', async (url) => {
    await expect(checkOutgoingUrl(url, { allowPrivate: false, lookup: fakeDns({}) })).rejects.toBeInstanceOf(
      WebhookUrlNotAllowedError,
    );
  });

  it('a name that resolves to a private address is refused when saved; a public one, or one that does not resolve yet, is accepted', async () => {
    const lookup = fakeDns({
      'internal.example.test': ['93.184.215.14', '10.1.2.3'],
      'hooks.example.test': ['93.184.215.14'],
    });
    await expect(checkOutgoingUrl('https://internal.example.test/x', { allowPrivate: false, lookup })).rejects.toThrow(
      'Webhook URL not allowed',
    );
    await expect(
      checkOutgoingUrl('https://hooks.example.test/x', { allowPrivate: false, lookup }),
    ).resolves.toBeUndefined();
    await expect(
      checkOutgoingUrl('https://later.example.test/x', { allowPrivate: false, lookup }),
    ).resolves.toBeUndefined();
  });

  it('a name that resolves to an IPv6 spelling of an inner address is refused when saved; a public IPv6 literal is accepted', async () => {
    const lookup = fakeDns({
      'compat.example.test': ['::7f00:1'],
      'nat64.example.test': ['64:ff9b::a9fe:a9fe'],
      'v6.example.test': ['2606:4700:4700::1111'],
    });
    await expect(checkOutgoingUrl('https://compat.example.test/x', { allowPrivate: false, lookup })).rejects.toThrow(
      'Webhook URL not allowed',
    );
    await expect(checkOutgoingUrl('https://nat64.example.test/x', { allowPrivate: false, lookup })).rejects.toThrow(
      'Webhook URL not allowed',
    );
    await expect(
      checkOutgoingUrl('https://v6.example.test/x', { allowPrivate: false, lookup }),
    ).resolves.toBeUndefined();
    await expect(
      checkOutgoingUrl('https://[2606:4700:4700::1111]/x', { allowPrivate: false, lookup }),
    ).resolves.toBeUndefined();
  });

  it('WEBHOOK_ALLOW_PRIVATE allows private addresses, never other schemes', async () => {
    await expect(checkOutgoingUrl('http://127.0.0.1:8080/x', { allowPrivate: true })).resolves.toBeUndefined();
    await expect(checkOutgoingUrl('ftp://127.0.0.1/x', { allowPrivate: true })).rejects.toBeInstanceOf(
      WebhookUrlNotAllowedError,
    );
  });
});

describe('the webhook transport, against real local receivers', () => {
  let receiver: HttpRecorder;
  beforeAll(async () => {
    receiver = await startHttpRecorder();
  });
  afterAll(async () => {
    await receiver.close();
  });
  const post = (transport: ReturnType<typeof createWebhookTransport>, url: string) =>
    transport({ url, headers: { 'Content-Type': 'application/json' }, body: '{"a":1}', timeoutMs: 2000 });

  it('connects to the checked address: a name that resolves to loopback is refused before any connection, unless private addresses are allowed', async () => {
    const lookup = fakeDns({ 'receiver.example.test': ['127.0.0.1'] });
    const guarded = createWebhookTransport({ allowPrivate: false, lookup });
    const open = createWebhookTransport({ allowPrivate: true, lookup });
    try {
      const before = receiver.requests.length;
      await expect(post(guarded, `http://receiver.example.test:${receiver.port}/x`)).rejects.toBeInstanceOf(
        WebhookUrlNotAllowedError,
      );
      await expect(post(guarded, `http://localhost:${receiver.port}/x`)).rejects.toBeInstanceOf(
        WebhookUrlNotAllowedError,
      );
      await expect(post(guarded, `${receiver.url}/x`)).rejects.toBeInstanceOf(WebhookUrlNotAllowedError);
      expect(receiver.requests.length).toBe(before);
      // The same name through the same lookup reaches the receiver when allowed: the lookup is what the socket used.
      expect(await post(open, `http://receiver.example.test:${receiver.port}/x`)).toEqual({ status: 200 });
      expect(receiver.requests.at(-1)).toMatchObject({ method: 'POST', path: '/x', body: '{"a":1}' });
    } finally {
      guarded.close();
      open.close();
    }
  });

  it('an IPv6 spelling of loopback is refused at delivery, as a literal or as what a name resolves to, before any connection', async () => {
    const guarded = createWebhookTransport({
      allowPrivate: false,
      lookup: fakeDns({ 'compat.example.test': ['::7f00:1'], 'mapped.example.test': ['::ffff:7f00:1'] }),
    });
    try {
      const before = receiver.requests.length;
      for (const url of [
        `http://[::127.0.0.1]:${receiver.port}/x`,
        `http://[::ffff:7f00:1]:${receiver.port}/x`,
        `http://[0:0:0:0:0:ffff:127.0.0.1]:${receiver.port}/x`,
        `http://compat.example.test:${receiver.port}/x`,
        `http://mapped.example.test:${receiver.port}/x`,
      ]) {
        await expect(post(guarded, url), url).rejects.toBeInstanceOf(WebhookUrlNotAllowedError);
      }
      expect(receiver.requests.length).toBe(before);
    } finally {
      guarded.close();
    }
  });

  it('a name that resolves to a public and a private address is refused (every resolved address is checked)', async () => {
    const guarded = createWebhookTransport({
      allowPrivate: false,
      lookup: fakeDns({ 'mixed.example.test': ['93.184.215.14', '127.0.0.1'] }),
    });
    try {
      await expect(post(guarded, `http://mixed.example.test:${receiver.port}/`)).rejects.toThrow(
        'Webhook URL not allowed',
      );
    } finally {
      guarded.close();
    }
  });

  it('does not follow a redirect: the 302 is the answer, and its target gets nothing', async () => {
    const target = await startHttpRecorder();
    const redirecting = await startHttpRecorder((_request, _index, res) => {
      res.writeHead(302, { Location: target.url }).end();
    });
    const transport = createWebhookTransport({ allowPrivate: true });
    try {
      expect(await post(transport, redirecting.url)).toEqual({ status: 302 });
      expect(target.requests).toHaveLength(0);
    } finally {
      transport.close();
      await redirecting.close();
      await target.close();
    }
  });

  it('a receiver slower than the timeout fails the attempt', async () => {
    const slow = await startHttpRecorder((_request, _index, res) => {
      setTimeout(() => res.writeHead(200).end(), 1500);
    });
    const transport = createWebhookTransport({ allowPrivate: true });
    try {
      await expect(transport({ url: slow.url, headers: {}, body: '{}', timeoutMs: 200 })).rejects.toThrow(
        'timed out after 200 ms',
      );
    } finally {
      transport.close();
      await slow.close();
    }
  });
});

describe('the retry schedule', () => {
  it('is 10 s doubling to an hourly cap, 32 retries spanning more than 24 hours; more retries add hours, fewer are raised', () => {
    const { delaysMs } = webhookRetrySchedule();
    expect(delaysMs.slice(0, 10)).toEqual([10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600].map((s) => s * 1000));
    expect(delaysMs).toHaveLength(32);
    const total = delaysMs.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThanOrEqual(minimumRetrySpanMs);
    expect(total - delaysMs.at(-1)!).toBeLessThan(minimumRetrySpanMs);
    expect(webhookRetrySchedule(3).delaysMs).toEqual(delaysMs);
    expect(webhookRetrySchedule(40).delaysMs).toEqual([...delaysMs, ...Array(8).fill(3_600_000)]);
    expect(scaleRetrySchedule(webhookRetrySchedule(), 0.001).delaysMs.slice(0, 3)).toEqual([10, 20, 40]);
  });
});
