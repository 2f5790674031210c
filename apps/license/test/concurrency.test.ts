import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const validate = (body: Record<string, unknown>) =>
  fetch(`${t.baseUrl}/api/license/validate`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as { error?: string } }));

async function usageCounts(licenseId: string) {
  const { rows } = await t.database.pool.query<{ status: string; n: number }>(
    'SELECT status, count(*) AS n FROM usage_records WHERE license_id = $1 GROUP BY status',
    [licenseId],
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

describe('limits under concurrency', () => {
  it('when 200 different IPs validate a license limited to 5 at once, exactly 5 succeed and 5 IPs are kept', async () => {
    const license = await t.createLicense({ ipLimit: 5 });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => validate({ key: license.key, ip: `10.9.${i >> 8}.${i & 255}` })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.error === 'IP limit exceeded')).toBe(true);
    const detail = await t.context.services.licenses.detail(license._id);
    expect(detail.usedIps).toHaveLength(5);
    expect(await usageCounts(license._id)).toEqual({ success: 5, blocked: 195 });
  });

  it('when 200 different hardware ids validate a license limited to 5 at once, exactly 5 succeed and 5 are kept', async () => {
    const license = await t.createLicense({ hwidLimit: 5 });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => validate({ key: license.key, ip: '10.10.0.1', hwid: `hw-${i}` })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.error === 'HWID limit exceeded')).toBe(true);
    const detail = await t.context.services.licenses.detail(license._id);
    expect(detail.usedHwids).toHaveLength(5);
    expect(await usageCounts(license._id)).toEqual({ success: 5, blocked: 195 });
  });

  it('when known and new IPs validate at once, every known IP succeeds and only the free places go to new ones', async () => {
    const license = await t.createLicense({ ipLimit: 5 });
    for (const ip of ['10.12.0.1', '10.12.0.2', '10.12.0.3'])
      expect((await validate({ key: license.key, ip })).status).toBe(200);
    const bodies = Array.from({ length: 150 }, (_, i) => ({
      key: license.key,
      ip: i % 3 === 0 ? `10.12.0.${(i % 9) / 3 + 1}` : `10.13.${i >> 8}.${i & 255}`,
    }));
    const results = await Promise.all(bodies.map(validate));
    const known = bodies.filter((body) => body.ip.startsWith('10.12.')).length;
    expect(results.filter((r) => r.status === 200)).toHaveLength(known + 2);
    expect((await t.context.services.licenses.detail(license._id)).usedIps).toHaveLength(5);
  });

  it('when a consumption license with 50 credits is validated 80 times at once, exactly 50 succeed and none remain', async () => {
    const license = await t.createLicense({ licenseType: 'consumption', credits: 50 });
    const results = await Promise.all(
      Array.from({ length: 80 }, () => validate({ key: license.key, ip: '10.11.0.1' })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(50);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.error === 'No credits remaining')).toBe(true);
    const detail = await t.context.services.licenses.detail(license._id);
    expect(detail.credits).toEqual({ total: 50, used: 50, remaining: 0 });
    expect(await usageCounts(license._id)).toEqual({ success: 50, invalid: 30 });
  });
});
