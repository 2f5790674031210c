import type { Page } from 'playwright-core';

// Keyboard-only helpers for the browser tests: move with Tab as a person would, and check at every
// stop that the focused element shows a focus ring.

/** What has the focus: its tag, accessible-ish name, and the ring it draws (outline). */
export interface Focused {
  tag: string;
  name: string;
  id: string;
  outline: string;
  ringed: boolean;
}

/** The focused element, and whether it draws a focus ring of at least 2 px. */
export function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return { tag: 'body', name: '', id: '', outline: '', ringed: false };
    const style = getComputedStyle(element);
    // A control's name is its label's text without the control (a select's options) or the hint in it.
    const labelElement = (element as HTMLInputElement).labels?.[0];
    const labelCopy = labelElement?.cloneNode(true) as HTMLElement | undefined;
    labelCopy?.querySelectorAll('input, select, textarea, .hint').forEach((node) => node.remove());
    const label = element.getAttribute('aria-label') ?? labelCopy?.textContent ?? element.textContent ?? '';
    const width = parseFloat(style.outlineWidth);
    return {
      tag: element.tagName.toLowerCase(),
      id: element.id,
      name: label.replace(/\s+/g, ' ').trim(),
      outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
      ringed: style.outlineStyle !== 'none' && width >= 2,
    };
  });
}

/**
 * Presses Tab (Shift+Tab with `backwards`) until the focused element's name matches, at most
 * `limit` times; every element passed on the way must show its focus ring. Answers the element.
 */
export async function tabTo(
  page: Page,
  name: string | RegExp,
  options: { backwards?: boolean; limit?: number } = {},
): Promise<Focused> {
  const seen: string[] = [];
  for (let step = 0; step < (options.limit ?? 40); step += 1) {
    await page.keyboard.press(options.backwards ? 'Shift+Tab' : 'Tab');
    const now = await focused(page);
    if (!now.ringed) throw new Error(`No visible focus ring on <${now.tag}> "${now.name}" (outline: ${now.outline})`);
    seen.push(now.name);
    if (typeof name === 'string' ? now.name === name : name.test(now.name)) return now;
  }
  throw new Error(`Tab never reached "${String(name)}"; it passed: ${seen.join(' | ')}`);
}
