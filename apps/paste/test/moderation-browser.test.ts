import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { chromiumForTests } from '@app/http/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { capture } from './browser.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// Debian's chromium; without it the scenarios are skipped with one line saying so (and fail under CI=true).
const executablePath = chromiumForTests("paste owner's list and paste pages in a browser");

const MARKDOWN = [
  '# Deploy checklist',
  '',
  'Before **every** release, run the steps below. See [the runbook](https://example.com/runbook) for details.',
  '',
  '1. Tag the release',
  '2. Build the image with `npm run build`',
  '3. Roll out to *staging*, then production',
  '',
  '> Never deploy on a Friday afternoon.',
  '',
  '```bash',
  'git tag -s v2.4.0 -m "Release 2.4.0" && git push --tags',
  '```',
  '',
  '| Step | Owner | Duration |',
  '|------|-------|---------:|',
  '| Build | CI | 6 min |',
  '| Staging | Ops | 15 min |',
  '',
  '- [x] Changelog written',
  '- [ ] Announcement sent',
  '',
  '<script>alert("no")</script>',
  '<img src=x onerror=alert(1)>',
].join('\n');

const CODE = `def fibonacci(n: int) -> list[int]:
    """The first n Fibonacci numbers."""
    numbers = [0, 1]
    while len(numbers) < n:
        numbers.append(numbers[-1] + numbers[-2])
    return numbers[:n]
`;

describe.skipIf(!executablePath)(
  `the owner's list of pastes and the paste page in a browser (${testDatabaseBackend()})`,
  () => {
    let site: TestSite;
    let browser: Browser;
    beforeAll(async () => {
      site = await startTestSite();
      browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    });
    afterAll(async () => {
      await browser?.close();
      await site?.close();
    });

    it('the owner signs in, searches the list, opens a paste, and deletes one with the Delete button after confirming', async () => {
      await site.reset();
      for (let index = 1; index <= 23; index += 1) {
        await site.createPaste({
          content: `note number ${index}\n`.repeat(index),
          title: index % 3 === 0 ? `Weekly notes ${index}` : undefined,
          maxViews: index % 4 === 0 ? 10 : undefined,
        });
      }
      const target = await site.createPaste({
        content: 'Revenue grew 12% over the quarter.',
        title: 'Quarterly report',
        password: 'numbers',
      });
      await site.createPaste({
        content: MARKDOWN,
        title: 'Deploy checklist with a rather long title that has to wrap on a phone',
        language: 'markdown',
        maxViews: 5,
      });

      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const page = await context.newPage();
        // A stranger is sent to the identity provider; the owner signs in there.
        await page.goto(`${site.baseUrl}/admin`);
        await page.getByLabel('User id').fill(OWNER_ID);
        await page.getByRole('button', { name: 'Sign in' }).click();
        // Back to the page that asked for the sign-in.
        await page.waitForURL(`${site.baseUrl}/admin`);
        await page.getByRole('heading', { name: 'Pastes', exact: true }).waitFor();

        const rows = page.locator('#pastes tbody tr');
        expect(await rows.count()).toBe(20);
        expect(await page.getByRole('link', { name: 'Next page' }).isVisible()).toBe(true);
        expect(await capture(page, 'paste-admin-pastes')).toBeLessThanOrEqual(390);

        // The next page holds the rest.
        await page.getByRole('link', { name: 'Next page' }).click();
        await page.waitForURL(/cursor=/);
        expect(await rows.count()).toBe(5);
        await page.getByRole('link', { name: 'First page' }).click();
        await page.waitForURL((url) => !url.search.includes('cursor'));

        await page.getByLabel('Search pastes').fill('quarterly');
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.waitForURL(/q=quarterly/);
        expect(await rows.count()).toBe(1);
        const row = rows.first();
        expect(await row.innerText()).toContain('Quarterly report');
        expect(await row.innerText()).toContain('password');

        // The owner opens it (its password form: the owner is asked like anyone).
        await row.getByRole('link', { name: target }).click();
        await page.waitForURL(`${site.baseUrl}/paste/${target}`);
        await page.getByLabel('Password').waitFor();
        await page.goBack();
        await page.getByLabel('Search pastes').waitFor();

        // The question is asked in the page (the shared dialog), never by the browser's confirm().
        const nativeDialogs: string[] = [];
        page.on('dialog', (dialog) => {
          nativeDialogs.push(dialog.message());
          void dialog.dismiss();
        });
        const dialog = page.getByRole('dialog');
        // Cancelling the question keeps the paste.
        await row.getByRole('button', { name: 'Delete' }).click();
        expect(await dialog.innerText()).toContain(`Delete paste ${target}? This cannot be undone.`);
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await dialog.waitFor({ state: 'detached' });
        expect(await rows.count()).toBe(1);
        await site.http.head(`/paste/${target}`).expect(200);

        await row.getByRole('button', { name: 'Delete' }).click();
        await dialog.getByRole('button', { name: 'Delete paste' }).click();
        await page.getByText(`Paste ${target} deleted.`).waitFor();
        expect(nativeDialogs).toEqual([]);
        expect(await page.locator('#pastes tbody tr').count()).toBe(0);
        await site.http.head(`/paste/${target}`).expect(404);

        await page.reload();
        await page.locator('#pastes .empty-title').waitFor();
        expect(await page.locator('#pastes .empty-title').innerText()).toBe('No paste matches this search.');
      } finally {
        await context.close();
      }
    });

    it('creates a titled Markdown paste in the form; its page renders it safely, and Copy puts the source on the clipboard', async () => {
      await site.reset();
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      try {
        const page = await context.newPage();
        const alerts: string[] = [];
        page.on('dialog', (dialog) => {
          alerts.push(dialog.message());
          void dialog.dismiss();
        });

        await page.goto(`${site.baseUrl}/`);
        await page.getByLabel('Title').fill('Deploy checklist');
        await page.getByLabel('Language').selectOption({ label: 'Markdown' });
        await page.getByLabel('Content').fill(MARKDOWN);
        expect(await capture(page, 'paste-home-title-language')).toBeLessThanOrEqual(390);
        // A plain paste, which the server renders (encrypted ones: encrypted-browser.test.ts).
        await page.getByLabel('Encrypt in my browser').uncheck();
        await page.getByRole('button', { name: 'Create paste' }).click();
        await page.waitForURL(/\/created$/);
        const slug = page.url().split('/').at(-2)!;

        await page.goto(`${site.baseUrl}/paste/${slug}`);
        await page.getByRole('heading', { name: 'Deploy checklist', level: 1 }).first().waitFor();
        expect(await page.title()).toMatch(/^Deploy checklist · /);
        const body = page.locator('.markdown-body');
        expect(await body.locator('strong').first().innerText()).toBe('every');
        expect(await body.locator('table tr').count()).toBe(3);
        expect(await body.getByRole('link', { name: 'the runbook' }).getAttribute('rel')).toBe('nofollow noopener');
        expect(await body.locator('script, img').count()).toBe(0);
        expect(await page.getByRole('link', { name: 'Raw' }).getAttribute('href')).toBe(`/paste/${slug}/raw`);
        expect(await capture(page, 'paste-markdown')).toBeLessThanOrEqual(390);

        await page.getByRole('button', { name: 'Copy' }).click();
        await page.getByRole('button', { name: 'Copied' }).waitFor();
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(MARKDOWN);
        expect(alerts).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('a code paste in its chosen language: line numbers stay out of what is copied, by button or by selection', async () => {
      await site.reset();
      const slug = await site.createPaste({ content: CODE, title: 'fibonacci.py', language: 'python' });
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      try {
        const page = await context.newPage();
        await page.goto(`${site.baseUrl}/paste/${slug}`);
        await page.getByRole('heading', { name: 'fibonacci.py' }).waitFor();
        expect(await page.locator('.paste-meta').innerText()).toContain('Python');
        expect(await page.locator('#paste-code .hljs-keyword').count()).toBeGreaterThan(0);
        // Six lines of code: the final newline ends the sixth, it numbers no seventh.
        expect(await page.locator('.gutter').innerText()).toBe('1\n2\n3\n4\n5\n6');

        // Selecting the whole code box (numbers and code) copies only the code.
        const selected = await page.evaluate(() => {
          const range = document.createRange();
          range.selectNodeContents(document.querySelector('.code')!);
          const selection = window.getSelection()!;
          selection.removeAllRanges();
          selection.addRange(range);
          return selection.toString();
        });
        expect(selected.trimEnd()).toBe(CODE.trimEnd());

        await page.getByRole('button', { name: 'Copy' }).click();
        await page.getByRole('button', { name: 'Copied' }).waitFor();
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);
        await page.evaluate(() => window.getSelection()!.removeAllRanges());
        await page.getByRole('button', { name: 'Copy' }).waitFor();
        expect(await capture(page, 'paste-python-titled')).toBeLessThanOrEqual(390);
      } finally {
        await context.close();
      }
    });
  },
);
