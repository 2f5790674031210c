import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { auditPage } from '@app/ui/testing';

// What the paste service's browser tests share.

/** Kept for people to look at (git-ignored): the repository's artifacts/screenshots/. */
export const screenshotFolder = path.resolve(import.meta.dirname, '../../../artifacts/screenshots');

/**
 * Screenshots at 1280 and 390 px (`<name>-<width>.png`), then back to 1280; answers how wide the
 * document is at 390 px, which is 390 unless something overflows sideways. The page is audited for
 * accessibility first (WCAG 2.1 AA by axe-core, light and dark theme): a violation fails the test.
 */
export async function capture(page: Page, name: string): Promise<number> {
  await auditPage(page, `paste-${name}`);
  return screenshots(page, name);
}

/** Screenshots at 1280 and 390 px without the audit; answers the document's width at 390 px. */
export async function screenshots(page: Page, name: string): Promise<number> {
  mkdirSync(screenshotFolder, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(screenshotFolder, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(screenshotFolder, `${name}-390.png`), fullPage: true });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.setViewportSize({ width: 1280, height: 800 });
  return width;
}
