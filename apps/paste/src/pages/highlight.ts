import hljs from 'highlight.js/lib/common';
import { escapeHtml } from '@app/http';

/**
 * Highlighting runs on the event loop, so its cost is bounded: the language is detected on the
 * first DETECT_SAMPLE characters (auto-detection tries every language, ~35 times the work), then
 * the whole paste is highlighted in that one language, up to MAX_HIGHLIGHT_CHARS (~100 ms).
 * Larger pastes are shown plain.
 */
const DETECT_SAMPLE = 2_000;
const MAX_HIGHLIGHT_CHARS = 100_000;
/**
 * highlight.js guesses a language for any text ("hello world" as bash, prose as VB.NET); a
 * guess this weak is noise, so such pastes are shown plain. Real code of a few lines scores well above it.
 */
const MIN_RELEVANCE = 5;
const CACHE_ENTRIES = 500;
const CACHE_CHARS = 20_000_000;

export interface Highlighted {
  html: string;
  language?: string;
  lines: number;
}

/**
 * Renders paste content for the page. A paste's content never changes, so the highlighted
 * markup is cached by paste id (an LRU bounded by entries and characters): repeated views
 * skip highlight.js's language detection, which costs far more than the database round trip.
 */
export function createHighlighter() {
  // highlight.js compiles each language's grammar on first use (about a second for all of them):
  // done once at start-up rather than in the first visitor's request.
  setImmediate(() => hljs.highlightAuto('const warmUp = true;'));
  const cache = new Map<string, Highlighted>();
  let cachedChars = 0;

  const remember = (key: string, value: Highlighted) => {
    cache.set(key, value);
    cachedChars += value.html.length;
    for (const [oldKey, old] of cache) {
      if (cache.size <= CACHE_ENTRIES && cachedChars <= CACHE_CHARS) break;
      cache.delete(oldKey);
      cachedChars -= old.html.length;
    }
  };

  return (id: number, content: string, highlight: boolean): Highlighted => {
    const key = `${id}:${highlight ? 1 : 0}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const lines = content.split('\n').length;
    let result: Highlighted;
    if (highlight && content.length <= MAX_HIGHLIGHT_CHARS) {
      const guess = hljs.highlightAuto(content.slice(0, DETECT_SAMPLE));
      if (guess.language && guess.relevance >= MIN_RELEVANCE) {
        const highlighted = content.length <= DETECT_SAMPLE ? guess : hljs.highlight(content, { language: guess.language });
        // highlight.js escapes the text it wraps, so its output is safe markup.
        result = { html: highlighted.value, language: guess.language, lines };
      } else {
        result = { html: escapeHtml(content), lines };
      }
    } else {
      result = { html: escapeHtml(content), lines };
    }
    remember(key, result);
    return result;
  };
}

export type Highlighter = ReturnType<typeof createHighlighter>;
