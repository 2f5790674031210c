import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { migrationsFolder } from '../src/app.js';
import { createPasteBatches } from '../src/pastes/pastes.repository.js';

describe(`batched paste statements (${testDatabaseBackend()})`, () => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase(migrationsFolder);
  });
  afterAll(async () => {
    await database?.close();
  });

  const insert = (slug: string, maxViews: number | null, passwordHash: string | null = null) =>
    database.pool.query('INSERT INTO pastes (slug, content, max_views, password_hash) VALUES ($1, $2, $3, $4)', [
      slug,
      `content of ${slug}`,
      maxViews,
      passwordHash,
    ]);
  const countOf = async (slug: string) =>
    (await database.pool.query<{ views_count: number }>('SELECT views_count FROM pastes WHERE slug = $1', [slug]))
      .rows[0]?.views_count;

  it('counts views exactly across several batches and slugs, in one repository or two', async () => {
    await insert('limited', 30);
    await insert('open', null);
    await insert('locked', null, 'hash');
    // Two repositories: two instances, whose batches run at the same time. Their statements are
    // counted: a batch statement that fails is retried item by item, which still counts right
    // but would hide a broken batch statement (it did once: a missing comma).
    let statements = 0;
    const counted = {
      query: ((...args: Parameters<typeof database.pool.query>) => {
        statements += 1;
        return database.pool.query(...args);
      }) as typeof database.pool.query,
    };
    const one = createPasteBatches(counted);
    const two = createPasteBatches(counted);
    const views = await Promise.all(
      Array.from({ length: 200 }, (_, index) => {
        const repository = index % 2 === 0 ? one : two;
        const slug = ['limited', 'open', 'locked', 'missing'][index % 4]!;
        return repository.view(slug, false).then(async (paste) => {
          // Later views arrive while earlier batches run.
          if (index % 3 === 0) await repository.view(slug, false);
          return { slug, paste };
        });
      }),
    );
    const shown = (slug: string) => views.filter((view) => view.slug === slug && view.paste);
    expect(await countOf('limited')).toBe(30);
    // 'open' is every 4th index (1, 5, 9, ...): 50 first views, plus a second one for the indexes divisible by 3.
    const openIndexes = Array.from({ length: 200 }, (_, index) => index).filter((index) => index % 4 === 1);
    expect(await countOf('open')).toBe(50 + openIndexes.filter((index) => index % 3 === 0).length);
    expect(await countOf('locked')).toBe(0);
    expect(shown('locked')).toHaveLength(0);
    expect(shown('missing')).toHaveLength(0);
    // Each shown view carries its own count: the counts handed out are distinct.
    const limitedCounts = shown('limited').map((view) => view.paste!.viewsCount);
    expect(limitedCounts.every((count) => count >= 1 && count <= 30)).toBe(true);
    expect(new Set(limitedCounts).size).toBe(limitedCounts.length);
    expect(new Set(shown('open').map((view) => view.paste!.viewsCount)).size).toBe(shown('open').length);
    // 267 views in batches: far fewer statements than views.
    expect(statements).toBeLessThan(100);
  });

  it('a locked paste counts only its unlocked views, in the same batch', async () => {
    await insert('guarded', 2, 'hash');
    const repository = createPasteBatches(database.pool);
    const results = await Promise.all(
      [false, true, false, true, true].map((unlocked) => repository.view('guarded', unlocked)),
    );
    expect(results.map((paste) => paste?.viewsCount ?? null)).toEqual([null, 1, null, 2, null]);
    expect(await countOf('guarded')).toBe(2);
  });

  it('inserts concurrent pastes in batches: taken slugs answer undefined, one bad row fails alone, usage counts once per API paste', async () => {
    await insert('taken', null);
    const repository = createPasteBatches(database.pool);
    const paste = (slug: string, content = 'x') => ({
      slug,
      content,
      passwordHash: null,
      maxViews: null,
      deleteTokenHash: 'f'.repeat(64),
    });
    const results = await Promise.allSettled([
      repository.insert(paste('new-1'), true),
      repository.insert(paste('taken'), true),
      repository.insert(paste('twice'), true),
      repository.insert(paste('twice'), true),
      repository.insert(paste('bad', 'nul \u0000 byte'), true),
      repository.insert(paste('new-2'), false),
    ]);
    expect(results.map((result) => (result.status === 'fulfilled' ? (result.value?.slug ?? null) : 'error'))).toEqual([
      'new-1',
      null,
      'twice',
      null,
      'error',
      'new-2',
    ]);
    const { rows } = await database.pool.query<{ total: string }>(
      "SELECT coalesce(sum(value), 0)::text AS total FROM paste_counters WHERE name LIKE 'api\\_usage:%'",
    );
    expect(Number(rows[0]!.total)).toBe(2);
  });
});
