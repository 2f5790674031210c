import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumForTests } from '@app/http/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { qrCodeSvg } from '../src/creator/qr.js';
import { capture } from './browser.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// End-to-end encrypted pastes in Debian's chromium: the form encrypts, the page decrypts and
// renders with the server's rules, and the command line and the browser read each other's pastes.
const executablePath = chromiumForTests('encrypted pastes in a browser');

const root = path.resolve(import.meta.dirname, '../../..');
const vectors = JSON.parse(readFileSync(path.join(root, 'packages/paste-cli/test/vectors.json'), 'utf8'))
  .vectors as Array<Record<string, unknown>>;

describe.skipIf(!executablePath)(
  `encrypted pastes in a browser (${testDatabaseBackend()})`,
  { timeout: 120_000 },
  () => {
    let site: TestSite;
    let browser: Browser;
    let folder: string;
    let cli: string;
    beforeAll(async () => {
      site = await startTestSite();
      // paste.test is this machine, reached over plain http: not a secure context, unlike 127.0.0.1.
      browser = await chromium.launch({
        executablePath,
        args: ['--no-sandbox', '--host-resolver-rules=MAP paste.test 127.0.0.1'],
      });
      folder = mkdtempSync(path.join(os.tmpdir(), 'paste-cli-browser-'));
      cli = path.join(folder, 'paste.mjs');
      await build({
        entryPoints: [path.join(root, 'packages/paste-cli/src/paste.ts')],
        outfile: cli,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        logLevel: 'warning',
      });
    });
    afterAll(async () => {
      await browser?.close();
      await site?.close();
      rmSync(folder, { recursive: true, force: true });
    });

    const paste = (args: string[], input = '') =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          [cli, ...args],
          { env: { ...process.env, PASTE_URL: site.baseUrl } },
          (error, stdout, stderr) => {
            resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
          },
        );
        child.stdin!.end(input);
      });

    async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        return await run(await context.newPage());
      } finally {
        await context.close();
      }
    }

    it("the page's copy of the format gives the vectors exactly, as Node does", async () => {
      await withPage(async (page) => {
        await page.goto(`${site.baseUrl}/`);
        // As text: the test runner would rewrite an import() written in the function itself.
        const results = await page.evaluate<
          Array<{ sealed: unknown; opened: string; check: string; hash: string }>
        >(`(async () => {
        const format = await import('/static/envelope.js');
        return Promise.all(${JSON.stringify(vectors)}.map(async (v) => {
          const sealed = await format.seal(v.payload, v.key, {
            password: v.password ?? undefined, iv: format.fromBase64Url(v.iv), salt: v.salt ? format.fromBase64Url(v.salt) : undefined,
          });
          const opened = await format.open(v.envelope, v.key, v.password ?? undefined);
          const check = await format.keyCheck(v.key);
          return { sealed, opened: opened.content, check, hash: await format.keyHashOfCheck(check) };
        }));
      })()`);
        results.forEach((result, index) => {
          const vector = vectors[index] as {
            envelope: { keyHash: string };
            keyCheck: string;
            payload: { content: string };
          };
          expect(result.sealed).toEqual(vector.envelope);
          expect(result.opened).toBe(vector.payload.content);
          // The key check the page sends is the one the command line sends (envelope.test.ts).
          expect(result.check).toBe(vector.keyCheck);
          expect(result.hash).toBe(vector.envelope.keyHash);
        });
      });
    });

    it('a Markdown paste made in the form is encrypted by default, shared with its key, rendered in the browser, and read by the CLI', async () => {
      await site.reset();
      const content =
        '# Release notes\n\nShip **on Friday**, see [the plan](https://example.com/plan).\n\n```js\nconst answer = 42;\n```\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n';
      const link = await withPage(async (page) => {
        await page.goto(`${site.baseUrl}/`);
        expect(await page.getByLabel('Encrypt in my browser').isChecked()).toBe(true);
        await page.getByLabel('Title').fill('Friday release');
        await page.getByLabel('Language').selectOption({ label: 'Markdown' });
        await page.getByLabel('Content').fill(content);
        await page.getByLabel('Expire after views').fill('2');
        await page.getByLabel('Reveal on click').uncheck();
        await capture(page, 'paste-encrypt-form');
        await page.getByRole('button', { name: 'Create paste' }).click();
        await page.waitForURL(/\/paste\/[A-Za-z0-9]{8}\/created#[A-Za-z0-9_-]{43}$/);
        const shared = await page.getByLabel('Link to share').inputValue();
        expect(shared).toBe(`${site.baseUrl}/paste/${page.url().split('/').at(-2)}#${page.url().split('#')[1]}`);
        expect(await page.locator('.limits').innerText()).toMatch(/Encrypted in your browser\s+Yes/);
        // The copy button and the QR code of the whole link, key included, drawn in the browser
        // exactly as the server draws a plain paste's (same package, same options).
        expect(await page.getByRole('button', { name: 'Copy link' }).isVisible()).toBe(true);
        const qr = page.getByRole('img', { name: `QR code of ${shared}` });
        await qr.waitFor({ timeout: 5000 });
        const drawn = await qr.evaluate((svg) => svg.outerHTML);
        const expected = (await qrCodeSvg(shared, `QR code of ${shared}`)).match(/ d="([^"]+)"/g);
        expect(drawn.match(/ d="([^"]+)"/g)).toEqual(expected);
        expect((await qr.boundingBox())!.width).toBeGreaterThan(150);
        await capture(page, 'paste-encrypted-created');
        return shared;
      });
      const slug = new URL(link).pathname.split('/').at(-1)!;
      const row = (
        await site.database.pool.query('SELECT content, title, encrypted FROM pastes WHERE slug = $1', [slug])
      ).rows[0];
      expect(row).toMatchObject({ title: null, encrypted: true });
      expect(row.content).not.toContain('Release');

      await withPage(async (page) => {
        await page.goto(link);
        await page.locator('#encrypted-paste[data-state="shown"]').waitFor();
        expect(await page.getByRole('heading', { level: 1, name: 'Friday release' }).isVisible()).toBe(true);
        const article = page.locator('.markdown-body');
        expect(await article.locator('h1').innerText()).toBe('Release notes');
        expect(await article.locator('a').getAttribute('rel')).toBe('nofollow noopener');
        expect(await article.locator('code.hljs .hljs-keyword').first().innerText()).toBe('const');
        expect(await article.locator('td').last().getAttribute('style')).toBe('text-align:right');
        expect(await page.title()).toContain('Friday release');
        const width = await capture(page, 'paste-encrypted-view');
        expect(width).toBe(390);
      });

      const read = await paste(['get', link]);
      expect([read.code, read.stdout, read.stderr]).toEqual([0, content, '']);
    });

    it('renders hostile Markdown exactly as the server renders the same text as a plain paste', async () => {
      await site.reset();
      const hostile = [
        '# Title <script>alert(1)</script>',
        '',
        '<img src=x onerror=alert(1)>',
        '',
        '[click](javascript:alert(1)) [data](data:text/html,hi) [rel](/paste/x) [proto](//evil.example/x) [mail](mailto:a@b.c)',
        '',
        '![pixel](https://tracker.example/p.png)',
        '',
        '```python\nprint("<b>")\n```',
        '',
        '> quote with `code` and *em*',
        '',
        '| l | c | r |',
        '|:--|:-:|--:|',
        '| 1 | 2 | 3 |',
        '',
        '1. one',
        '2. two',
        '',
        'https://auto.link/path',
      ].join('\n');
      const plainSlug = await site.createPaste({ content: hostile, language: 'markdown' });
      const put = await paste(['put', '-', '--language', 'markdown'], hostile);
      expect(put.code, put.stderr).toBe(0);
      await withPage(async (page) => {
        await page.goto(`${site.baseUrl}/paste/${plainSlug}`);
        const server = await page.locator('.markdown-body').innerHTML();
        await page.goto(put.stdout.trim());
        await page.locator('#encrypted-paste[data-state="shown"]').waitFor();
        const browserSide = await page.locator('.markdown-body').innerHTML();
        expect(browserSide).toBe(server);
        // Whatever the text says, no element runs anything or leads anywhere but http(s), mailto and this site.
        const found = await page.evaluate(() => {
          const elements = [...document.querySelectorAll('.markdown-body *')];
          return {
            tags: [...new Set(elements.map((element) => element.tagName.toLowerCase()))].filter((tag) =>
              ['script', 'img', 'style', 'iframe'].includes(tag),
            ),
            handlers: elements
              .flatMap((element) => [...element.attributes].map((attribute) => attribute.name))
              .filter((name) => name.startsWith('on')),
            hrefs: [...document.querySelectorAll('.markdown-body a[href]')].map((link) => link.getAttribute('href')!),
          };
        });
        expect(found.tags).toEqual([]);
        expect(found.handlers).toEqual([]);
        expect(found.hrefs.filter((href) => !/^(https?:|mailto:|\/[^/])/.test(href))).toEqual([]);
      });
    });

    it('a CLI paste with a password and one view opens in the browser behind its "Show paste" button, once', async () => {
      await site.reset();
      const passwordFile = path.join(folder, 'password');
      writeFileSync(passwordFile, 'open sesame\n');
      const put = await paste(
        ['put', '-', '--views', '1', '--password-file', passwordFile, '--language', 'python'],
        'def greet():\n    return "hi"\n',
      );
      expect(put.code, put.stderr).toBe(0);
      const link = put.stdout.trim();
      await withPage(async (page) => {
        await page.goto(link);
        await page.getByLabel('Password').fill('open sesame');
        await capture(page, 'paste-encrypted-reveal');
        await page.getByRole('button', { name: 'Show paste' }).click();
        await page.locator('#encrypted-paste[data-state="shown"]').waitFor();
        expect(page.url()).toMatch(/#[A-Za-z0-9_-]{43}$/);
        expect(await page.locator('#paste-code').innerText()).toBe('def greet():\n    return "hi"\n');
        expect(await page.locator('#paste-code .hljs-keyword').first().innerText()).toBe('def');
        expect(await page.getByRole('status').first().innerText()).toContain('last allowed view');
        await capture(page, 'paste-encrypted-password-view');
        expect((await page.goto(link))?.status()).toBe(410);
      });
      const again = await paste(['get', link, '--password-file', passwordFile]);
      expect([again.code, again.stderr]).toEqual([1, 'Paste expired\n']);
    });

    it('a password paste made in the form: the recipient unlocks it once and the page decrypts with that password', async () => {
      await site.reset();
      const link = await withPage(async (page) => {
        await page.goto(`${site.baseUrl}/`);
        await page.getByLabel('Content').fill('the vault code is 0000');
        await page.getByLabel('Password').fill('s3cret');
        await page.getByRole('button', { name: 'Create paste' }).click();
        await page.waitForURL(/\/created#/);
        return page.getByLabel('Link to share').inputValue();
      });
      await withPage(async (page) => {
        await page.goto(link);
        await page.getByLabel('Password').fill('s3cret');
        await page.getByRole('button', { name: 'Unlock' }).click();
        await page.locator('#encrypted-paste[data-state="shown"]').waitFor();
        expect(await page.locator('#paste-code').innerText()).toBe('the vault code is 0000');
        expect(await page.evaluate(() => window.sessionStorage.length)).toBe(0);
      });
      const read = await paste([
        'get',
        link,
        '--password-file',
        (writeFileSync(path.join(folder, 'pw2'), 's3cret'), path.join(folder, 'pw2')),
      ]);
      expect([read.code, read.stdout]).toEqual([0, 'the vault code is 0000']);
    });

    const viewsOf = async (link: string) =>
      (
        await site.database.pool.query('SELECT views_count AS n FROM pastes WHERE slug = $1', [
          new URL(link).pathname.split('/').at(-1),
        ])
      ).rows[0].n as number;

    it('a link without its key says so and spends no view of a one-view paste; the whole link then opens it', async () => {
      await site.reset();
      const put = await paste(['put', '-', '--views', '1'], 'only with the key');
      const link = put.stdout.trim();
      const requests: string[] = [];
      await withPage(async (page) => {
        page.on('request', (sent) => requests.push(`${sent.method()} ${new URL(sent.url()).pathname}`));
        // A one-view paste from the CLI has the "Show paste" button: press it, as a reader would.
        await page.goto(link.split('#')[0]!);
        await page.getByRole('button', { name: 'Show paste' }).click();
        await page.locator('#encrypted-paste[data-state="no-key"]').waitFor();
        expect(await page.locator('#decrypt-status').innerText()).toBe(
          'This link is missing its key (the part after “#”), so the paste cannot be opened. No view was counted: ask the sender for the whole link.',
        );
        expect(await page.locator('#decrypt-status').getAttribute('class')).toContain('alert-error');
        await capture(page, 'paste-encrypted-missing-key');
      });
      // The page never asked for the envelope.
      expect(requests.filter((request) => request.includes('/raw'))).toEqual([]);
      expect(await viewsOf(link)).toBe(0);
      const owner = await site.session(OWNER_ID);
      const listed = await site.http.get('/api/pastes').set('Cookie', owner.cookie);
      expect(listed.body.pastes[0]).toMatchObject({ encrypted: true, viewsCount: 0 });

      await withPage(async (page) => {
        await page.goto(link);
        await page.getByRole('button', { name: 'Show paste' }).click();
        await page.locator('#encrypted-paste[data-state="shown"]').waitFor();
        expect(await page.locator('#paste-code').innerText()).toBe('only with the key');
        expect(await page.locator('#paste-views').innerText()).toBe('1 of 1 views');
        expect(await page.locator('#last-view').isVisible()).toBe(true);
      });
      expect(await viewsOf(link)).toBe(1);
    });

    it('a wrong key says so and spends no view', async () => {
      await site.reset();
      const put = await paste(['put', '-'], 'nothing to see');
      await withPage(async (page) => {
        await page.goto(`${put.stdout.trim().split('#')[0]}#${'A'.repeat(43)}`);
        await page.locator('#encrypted-paste[data-state="no-key"]').waitFor();
        expect(await page.locator('#decrypt-status').innerText()).toBe(
          'This link has the wrong key (the part after “#”), so the paste cannot be opened. No view was counted: ask the sender for the whole link.',
        );
        await capture(page, 'paste-encrypted-wrong-key');
      });
      expect(await viewsOf(put.stdout.trim())).toBe(0);
    });

    it('over plain http on another host the form says encryption needs https and offers a plain paste', async () => {
      await site.reset();
      const insecure = site.baseUrl.replace('127.0.0.1', 'paste.test');
      await withPage(async (page) => {
        await page.goto(`${insecure}/`);
        expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
        const box = page.getByLabel('Encrypt in my browser');
        expect([await box.isChecked(), await box.isDisabled()]).toEqual([false, true]);
        expect(await page.locator('#encrypt-unavailable').innerText()).toContain('needs https');
        await capture(page, 'paste-encrypt-insecure');
        await page.getByLabel('Content').fill('plain over http');
        await page.getByRole('button', { name: 'Create paste' }).click();
        await page.waitForURL(/\/created$/);
      });
      expect((await site.database.pool.query('SELECT content, encrypted FROM pastes')).rows).toEqual([
        { content: 'plain over http', encrypted: false },
      ]);
    });
  },
);
