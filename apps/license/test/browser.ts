import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { auditPage } from '@app/ui/testing';
import type { Session } from './helpers.js';

// What the license service's browser tests share: a page signed in as someone, and the
// screenshots at a desktop and a phone width that double as the horizontal-overflow check.

/** Kept for people to look at (git-ignored, kept by CI): the repository's artifacts/screenshots/. */
export const screenshotFolder = path.resolve(import.meta.dirname, '../../../artifacts/screenshots');

/**
 * Screenshots at 1280 and 390 px (`license-<name>-<width>.png`); answers how wide the document
 * is at 390 px, which is 390 unless something overflows sideways. The page is audited for
 * accessibility first (WCAG 2.1 AA by axe-core, light and dark theme): a violation fails the test.
 */
export async function capture(page: Page, name: string): Promise<number> {
  await auditPage(page, `license-${name}`);
  return screenshots(page, name);
}

/** Screenshots at 1280 and 390 px without the audit; answers the document's width at 390 px. */
export async function screenshots(page: Page, name: string): Promise<number> {
  mkdirSync(screenshotFolder, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(screenshotFolder, `license-${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(screenshotFolder, `license-${name}-390.png`), fullPage: true });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.setViewportSize({ width: 1280, height: 800 });
  return width;
}

/** A new browser context and page carrying the session's cookies for `baseUrl` (no session: a visitor), allowed to use the clipboard. */
export async function pageAs(browser: Browser, baseUrl: string, session?: Session): Promise<Page> {
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  if (session) {
    await context.addCookies(
      session.cookie.split('; ').map((pair) => {
        const [name, ...value] = pair.split('=');
        return { name: name!, value: value.join('='), url: baseUrl };
      }),
    );
  }
  return context.newPage();
}
