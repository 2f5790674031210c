import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhookPayload, verifyWebhookSignature } from '../src/webhooks/index.js';

const body = JSON.stringify({
  event: 'LICENSE_CREATED',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { licenseKey: 'APP-1' },
});
const now = 1_800_000_000_000;
const t = now / 1000;

describe('webhook signatures', () => {
  it('signs "<t>.<raw body>" with HMAC-SHA256 as t=<unix seconds>,v1=<hex>', () => {
    const expected = createHmac('sha256', 'whsec').update(`${t}.${body}`).digest('hex');
    expect(signWebhookPayload('whsec', body, t)).toBe(`t=${t},v1=${expected}`);
  });

  it.each([
    {
      name: 'a valid signature passes',
      header: signWebhookPayload('whsec', body, t),
      secret: 'whsec',
      payload: body,
      ok: true,
    },
    {
      name: 'a Buffer body passes',
      header: signWebhookPayload('whsec', body, t),
      secret: 'whsec',
      payload: Buffer.from(body),
      ok: true,
    },
    {
      name: 'another secret fails',
      header: signWebhookPayload('other', body, t),
      secret: 'whsec',
      payload: body,
      ok: false,
    },
    {
      name: 'one changed byte of the body fails',
      header: signWebhookPayload('whsec', body, t),
      secret: 'whsec',
      payload: body.replace('APP-1', 'APP-2'),
      ok: false,
    },
    {
      name: 'a timestamp outside the tolerance fails',
      header: signWebhookPayload('whsec', body, t - 301),
      secret: 'whsec',
      payload: body,
      ok: false,
    },
    { name: 'a missing header fails', header: undefined, secret: 'whsec', payload: body, ok: false },
    { name: 'a malformed header fails', header: 'v1=abc', secret: 'whsec', payload: body, ok: false },
    {
      name: 'a tampered timestamp fails',
      header: signWebhookPayload('whsec', body, t).replace(`t=${t}`, `t=${t + 1}`),
      secret: 'whsec',
      payload: body,
      ok: false,
    },
  ])('$name', ({ header, secret, payload, ok }) => {
    expect(verifyWebhookSignature({ header, body: payload, secret, now })).toBe(ok);
  });
});
