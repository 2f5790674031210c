/**
 * The paste data set of `npm run bench:scale`, made in SQL with generate_series (no row passes
 * through Node).
 */
import { withoutIndexes, type Sql } from '../../../scripts/bench/page-timing.js';

/**
 * `count` pastes over the last two years (newer ones more frequent). Sizes: 60 % 100 B–1 kB,
 * 30 % 1–5 kB, 10 % 5–40 kB of code-like text. 5 % have a view limit (some used up to one view
 * short of it), 10 % expire within 30 days, 3 % have a password (`passwordHash`, a real bcrypt
 * hash), every one has a delete-token hash (SHA-256 hex) as the app stores it, and
 * views follow a long tail. Slugs are 10 base-62 characters, unique.
 */
export async function seedPastes(client: Sql, count: number, passwordHash: string): Promise<void> {
  await withoutIndexes(client, 'pastes', async () => {
    await client.query(
      `
      INSERT INTO pastes (slug, content, password_hash, max_views, views_count, created_at, last_viewed_at, delete_token_hash,
                          title, language, expires_at, reveal_on_click, preview_fetches)
      SELECT slug, content, password_hash, max_views, least(views, coalesce(max_views - 1, views)), created_at,
             CASE WHEN views > 0 THEN created_at + (random() * (now() - created_at)) END,
             encode(sha256(convert_to('delete-' || g, 'UTF8')), 'hex'),
             CASE WHEN g % 3 = 0 THEN 'Snippet ' || g END,
             (ARRAY['auto', 'plaintext', 'markdown', 'typescript', 'python', 'sql', 'bash'])[1 + g % 7],
             CASE WHEN g % 10 = 1 THEN now() + (1 + g % 720) * interval '1 hour' END,
             g % 50 = 7, (g % 5)
        FROM (
          SELECT g,
                 -- 10 base-62 characters from the row number and its hash: unique, and as random-looking as the app's.
                 translate(substr(encode(decode(md5(g::text) || md5('s' || g), 'hex'), 'base64'), 1, 10), '+/', 'xY') AS slug,
                 substr(repeat('function step' || g || '(input) {\n  // ' || md5(g::text) || '\n  return input.map((x) => x * 2);\n}\n',
                               1 + size / 80), 1, size) AS content,
                 CASE WHEN g % 33 = 0 THEN $2::text END AS password_hash,
                 CASE WHEN g % 20 = 3 THEN 1 + g % 50 END AS max_views,
                 (floor(power(random(), 6) * 5000))::int AS views,
                 now() - power(random(), 1.5) * interval '730 days' AS created_at
            FROM (SELECT g, CASE WHEN g % 10 < 6 THEN 100 + ((g::bigint * 7919) % 900)::int
                                 WHEN g % 10 < 9 THEN 1000 + ((g::bigint * 7919) % 4000)::int
                                 ELSE 5000 + ((g::bigint * 7919) % 35000)::int END AS size
                    FROM generate_series(1, $1::int) AS g) sized
        ) p`,
      [count, passwordHash],
    );
  });
  // Pastes made through the API, as the counter the app keeps them in.
  await client.query(`INSERT INTO paste_counters (name, value) VALUES ('api_usage:0', 250000)
    ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`);
}
