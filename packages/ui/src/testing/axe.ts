import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';

// The accessibility audit of the browser tests: axe-core's WCAG 2.0 and 2.1 level A and AA rules,
// run in the page itself in the light and then the dark theme. A page is audited once per test
// worker (by the name the test gives it), so a page captured in several tests costs one audit.

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets checked: what "WCAG 2.1 AA" means to axe-core. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** The WCAG A/AA rules whose outcome a theme can change. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

export type Theme = 'light' | 'dark';
export const THEMES: Theme[] = ['light', 'dark'];

/** One broken rule on one element: the rule's id, the element's CSS selector, and why. */
export interface Violation {
  theme: Theme;
  rule: string;
  selector: string;
  summary: string;
}

/** Where each audit leaves a line (git-ignored); the browser suite's teardown sums them up. */
export const auditFolder = path.resolve(import.meta.dirname, '../../../../artifacts/axe');

const audited = new Set<string>();

/**
 * Audits the page as it stands in both themes (the `data-theme` the toggle sets, and the system
 * preference beside it), then puts the theme back. Throws, naming each rule and element, when
 * anything is broken; a page already audited under `name` in this worker is skipped.
 */
export async function auditPage(page: Page, name: string): Promise<void> {
  if (audited.has(name)) return;
  audited.add(name);
  const started = performance.now();
  const violations = await findViolations(page);
  const ms = Math.round(performance.now() - started);
  mkdirSync(auditFolder, { recursive: true });
  writeFileSync(
    path.join(auditFolder, `${name.replace(/[^a-z0-9-]+/gi, '-')}.json`),
    JSON.stringify({ name, url: page.url(), themes: THEMES, violations: violations.length, ms, at: Date.now() }),
  );
  if (violations.length) {
    const lines = violations.map((found) => `  [${found.theme}] ${found.rule} at ${found.selector}: ${found.summary}`);
    throw new Error(
      `axe-core: ${violations.length} WCAG 2.1 AA violation(s) on "${name}" (${page.url()}):\n${lines.join('\n')}`,
    );
  }
}

/** Every violation of the WCAG A/AA rules on the page, in each theme. */
export async function findViolations(page: Page): Promise<Violation[]> {
  const before = await page.evaluate(() => ({
    attribute: document.documentElement.getAttribute('data-theme'),
    dark: window.matchMedia('(prefers-color-scheme: dark)').matches,
  }));
  // Through the DevTools protocol, so the pages' Content-Security-Policy (no inline script) allows it.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const found: Violation[] = [];
  try {
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      // A theme changes colours only: after the first, only the rules about colour run again.
      const runOnly = theme === THEMES[0] ? { type: 'tag', values: WCAG_TAGS } : { type: 'rule', values: COLOUR_RULES };
      found.push(
        ...(await page.evaluate(
          async ({ theme, runOnly }) => {
            document.documentElement.setAttribute('data-theme', theme);
            const axe = (window as unknown as { axe: AxeInPage }).axe;
            const results = await axe.run(document, { runOnly, resultTypes: ['violations'] });
            return results.violations.flatMap((rule) =>
              rule.nodes.map((node) => ({
                theme,
                rule: rule.id,
                selector: node.target.join(' '),
                summary: (node.failureSummary ?? rule.help).replace(/\s+/g, ' '),
              })),
            );
          },
          { theme, runOnly },
        )),
      );
    }
  } finally {
    await page.emulateMedia({ colorScheme: before.dark ? 'dark' : 'light' });
    await page.evaluate((attribute) => {
      if (attribute) document.documentElement.setAttribute('data-theme', attribute);
      else document.documentElement.removeAttribute('data-theme');
    }, before.attribute);
  }
  return found;
}

/** The little of axe-core's API used in the page (its own types describe the Node side). */
interface AxeInPage {
  run(
    context: Document,
    options: object,
  ): Promise<{
    violations: { id: string; help: string; nodes: { target: string[]; failureSummary?: string }[] }[];
  }>;
}
