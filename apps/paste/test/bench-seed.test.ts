import bcrypt from 'bcrypt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPastes } from '../bench/seed.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// `npm run bench:scale` seeds a million pastes in SQL; here a few hundred of the same rows must be
// pastes the app shows, counts, lists and unlocks as it does its own.
let site: TestSite;
const count = 400;
const slugWhere = async (condition: string) =>
  (await site.database.pool.query<{ slug: string }>(`SELECT slug FROM pastes WHERE ${condition} ORDER BY id LIMIT 1`))
    .rows[0]!.slug;

beforeAll(async () => {
  site = await startTestSite();
  await seedPastes(site.database.pool, count, await bcrypt.hash('bench-password', 4));
}, 120_000);
afterAll(async () => {
  await site?.close();
});

describe("the benchmark's paste seed", () => {
  it("makes unique slugs of the app's alphabet, and pastes the site shows", async () => {
    const { rows } = await site.database.pool.query<{ slug: string }>('SELECT slug FROM pastes');
    expect(rows).toHaveLength(count);
    expect(new Set(rows.map((row) => row.slug)).size).toBe(count);
    for (const { slug } of rows) expect(slug).toMatch(/^[A-Za-z0-9]{10}$/);
    const plain = await slugWhere(
      'password_hash IS NULL AND max_views IS NULL AND expires_at IS NULL AND NOT reveal_on_click',
    );
    const page = await site.http.get(`/paste/${plain}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('function step');
  });

  it('protects some pastes with a password the app checks', async () => {
    const locked = await slugWhere('password_hash IS NOT NULL');
    const wrong = await site.http.post(`/paste/${locked}/verify`).send({ password: 'nope' });
    expect(wrong.status).toBe(401);
    const right = await site.http.post(`/paste/${locked}/verify`).send({ password: 'bench-password' });
    expect(right.status).toBe(200);
  });

  it("answers the owner's statistics and dashboard over the seeded pastes", async () => {
    const { cookie } = await site.session(OWNER_ID);
    const stats = await site.http.get('/api/stats').set('Cookie', cookie);
    expect(stats.status).toBe(200);
    expect(stats.body.totalPastes).toBeGreaterThan(0);
    expect(stats.body.totalPastes).toBeLessThanOrEqual(count);
    const admin = await site.http.get('/admin').set('Cookie', cookie);
    expect(admin.status).toBe(200);
  });
});
