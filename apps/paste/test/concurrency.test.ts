import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { startTestSite, type TestSite } from './helpers.js';

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site?.close();
});

/** Fires `count` requests at once (each on its own connection) and answers their statuses. */
async function simultaneous(path: string, count: number): Promise<number[]> {
  const responses = await Promise.all(
    Array.from({ length: count }, () =>
      fetch(`${site.baseUrl}${path}`, { headers: { Connection: 'close' } }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      }),
    ),
  );
  return responses;
}

describe(`views under load (${testDatabaseBackend()})`, () => {
  it('when 100 people open a paste with maxViews 1 at once, exactly one sees it and 99 get 410', async () => {
    const slug = await site.createPaste({ content: 'only once', maxViews: 1 });
    const statuses = await simultaneous(`/paste/${slug}`, 100);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 410)).toHaveLength(99);
    const { rows } = await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [slug]);
    expect(rows[0].views_count).toBe(1);
  });

  it('when 100 people open a paste without a limit at once, viewsCount ends at exactly 100', async () => {
    const slug = await site.createPaste({ content: 'for everyone' });
    const statuses = await simultaneous(`/paste/${slug}`, 100);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const { rows } = await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [slug]);
    expect(rows[0].views_count).toBe(100);
  });

  it('when 100 raw views of a paste with maxViews 5 race, exactly five succeed', async () => {
    const slug = await site.createPaste({ content: 'five times', maxViews: 5 });
    const statuses = await simultaneous(`/paste/${slug}/raw`, 100);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 410)).toHaveLength(95);
  });
});
