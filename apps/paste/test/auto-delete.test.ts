import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { createJobQueue, type JobQueue } from '@app/events';
import { createLogger } from '@app/http';
import { AUTO_DELETE_JOB, scheduleAutoDelete } from '../src/auto-delete/auto-delete.job.js';
import { startTestSite, type TestSite } from './helpers.js';

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site?.close();
});
beforeEach(async () => {
  await site.reset();
});

/** Pastes whose last activity is `days` ago: one never viewed, one viewed. */
async function seed(): Promise<Record<string, string>> {
  const slugs: Record<string, string> = {};
  for (const [name, created, viewed] of [
    ['fresh', 0, null],
    ['created10', 10, null],
    ['created40', 40, null],
    ['created40viewed2', 40, 2],
    ['created200viewed100', 200, 100],
    ['created400', 400, null],
  ] as const) {
    const slug = await site.createPaste({ content: name });
    await site.database.pool.query(
      `UPDATE pastes SET created_at = now() - make_interval(days => $2),
              last_viewed_at = CASE WHEN $3::int IS NULL THEN NULL ELSE now() - make_interval(days => $3::int) END
        WHERE slug = $1`,
      [slug, created, viewed],
    );
    slugs[name] = slug;
  }
  return slugs;
}

const remaining = async () =>
  (await site.database.pool.query('SELECT content FROM pastes ORDER BY content')).rows.map(
    (row) => row.content as string,
  );

describe(`auto-deletion of inactive pastes (${testDatabaseBackend()})`, () => {
  test.each([
    {
      setting: 'never',
      kept: ['created10', 'created200viewed100', 'created40', 'created400', 'created40viewed2', 'fresh'],
    },
    { setting: '7', kept: ['created40viewed2', 'fresh'] },
    { setting: '30', kept: ['created10', 'created40viewed2', 'fresh'] },
    { setting: '90', kept: ['created10', 'created40', 'created40viewed2', 'fresh'] },
    { setting: '365', kept: ['created10', 'created200viewed100', 'created40', 'created40viewed2', 'fresh'] },
  ] as const)('with autoDeleteInactive $setting, a run keeps $kept', async ({ setting, kept }) => {
    await seed();
    await site.settings.update({ autoDeleteInactive: setting });
    await site.paste.pastes.deleteInactive();
    expect(await remaining()).toEqual(kept);
  });

  describe('as a job of the queue', () => {
    let queue: JobQueue;
    let stopListening: () => void;
    beforeAll(async () => {
      queue = await createJobQueue({
        pool: site.database.pool,
        logger: createLogger({ level: 'silent' }),
        pollingIntervalSeconds: 0.5,
      });
    });
    afterAll(async () => {
      stopListening?.();
      await queue?.stop();
    });

    it('runs at start-up and again when the owner changes the setting', async () => {
      await seed();
      await site.settings.update({ autoDeleteInactive: '365' });
      stopListening = await scheduleAutoDelete({
        queue,
        pastes: site.paste.pastes,
        settings: site.settings,
        logger: createLogger({ level: 'silent' }),
      });
      await expect.poll(remaining, { timeout: 15_000, interval: 200 }).not.toContain('created400');
      expect(await remaining()).toHaveLength(5);

      await site.settings.update({ autoDeleteInactive: '7' });
      await expect.poll(remaining, { timeout: 15_000, interval: 200 }).toEqual(['created40viewed2', 'fresh']);
    });

    it('keeps one hourly schedule for the job (shared by every instance)', async () => {
      const { rows } = await site.database.pool.query('SELECT name, cron FROM pgboss.schedule WHERE name = $1', [
        AUTO_DELETE_JOB,
      ]);
      expect(rows).toEqual([{ name: AUTO_DELETE_JOB, cron: expect.stringMatching(/^\d+ \* \* \* \*$/) }]);
    });
  });
});
