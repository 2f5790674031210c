import { escapeHtml } from '@app/http';
import { highlightJs } from './highlight-js.js';
import { AUTO_DETECT_LANGUAGES, DEFAULT_LANGUAGE, languageLabel } from './languages.js';
import { createMarkdownRenderer } from './markdown.js';

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
/**
 * Markdown beyond this is shown as its (highlighted) source: parsing and sanitising cost more per
 * character than highlighting, up to ~10 ms per KB for hostile text (emphasis on every character).
 */
const MAX_MARKDOWN_CHARS = 50_000;
/**
 * What `auto` tries: the common languages. Not Markdown: highlight.js's Markdown grammar backtracks
 * badly on nested brackets (`[[[…a](](](…`: 1,000 of them took 0.5 s, 2,000 took 7 s), and
 * detection would run it on every paste.
 */
const AUTO_DETECT: string[] = [...AUTO_DETECT_LANGUAGES];
/** The grammar above, never run on a paste's text (a Markdown paste is rendered, or shown plain). */
const isMarkdownGrammar = (name: string) => highlightJs().getLanguage(name) === highlightJs().getLanguage('markdown');
const CACHE_ENTRIES = 500;
const CACHE_CHARS = 20_000_000;

export interface Highlighted {
  html: string;
  /** The language's name for people, when the code was highlighted in one (or is plain text by choice). */
  language?: string;
  lines: number;
  /** `html` is rendered Markdown (sanitised), not lines of code. */
  markdown?: boolean;
}

/**
 * Renders paste content for the page. A paste's content never changes, so the highlighted
 * markup is cached by paste id (an LRU bounded by entries and characters): repeated views
 * skip highlight.js's language detection, which costs far more than the database round trip.
 */
export function createHighlighter() {
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

  // Code blocks of a Markdown paste, highlighted when they name a language highlight.js knows.
  const renderMarkdown = createMarkdownRenderer((code, language) =>
    highlightJs().getLanguage(language) && !isMarkdownGrammar(language)
      ? highlightJs().highlight(code, { language, ignoreIllegals: true }).value
      : undefined,
  );
  const renderMarkdownPlain = createMarkdownRenderer(() => undefined);

  const render = (content: string, highlight: boolean, language: string): Highlighted => {
    // A final newline ends the last line; it does not start another (a <pre> shows none).
    const lines = content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
    if (language === 'markdown') {
      if (content.length <= MAX_MARKDOWN_CHARS) {
        return {
          html: (highlight ? renderMarkdown : renderMarkdownPlain)(content),
          language: 'Markdown',
          lines,
          markdown: true,
        };
      }
      return { html: escapeHtml(content), language: 'Markdown (too long to render, shown as source)', lines };
    }
    if (language === 'plaintext') return { html: escapeHtml(content), language: languageLabel(language), lines };
    if (!highlight || content.length > MAX_HIGHLIGHT_CHARS) return { html: escapeHtml(content), lines };
    const hljs = highlightJs();
    if (language !== DEFAULT_LANGUAGE && hljs.getLanguage(language)) {
      // highlight.js escapes the text it wraps, so its output is safe markup.
      return {
        html: hljs.highlight(content, { language, ignoreIllegals: true }).value,
        language: languageLabel(language),
        lines,
      };
    }
    const guess = hljs.highlightAuto(content.slice(0, DETECT_SAMPLE), AUTO_DETECT);
    if (guess.language && guess.relevance >= MIN_RELEVANCE) {
      const highlighted =
        content.length <= DETECT_SAMPLE
          ? guess
          : hljs.highlight(content, { language: guess.language, ignoreIllegals: true });
      return { html: highlighted.value, language: guess.language, lines };
    }
    return { html: escapeHtml(content), lines };
  };

  /** `language`: the paste's (`auto` detects one). */
  return (id: number, content: string, highlight: boolean, language: string = DEFAULT_LANGUAGE): Highlighted => {
    // A paste's content and language never change; the setting does.
    const key = `${id}:${highlight ? 1 : 0}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const result = render(content, highlight, language);
    remember(key, result);
    return result;
  };
}

export type Highlighter = ReturnType<typeof createHighlighter>;
