import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { escapeHtml } from '@app/http';
import rules from '../../public/markdown-rules.json' with { type: 'json' };

/**
 * Markdown pastes as HTML, in two layers:
 * - `markdown-it` with raw HTML off: HTML in the source is shown as text, and its own link check
 *   refuses javascript:, vbscript: and file: addresses. Chosen over `marked` for its behaviour on
 *   hostile input: nesting is capped and pathological emphasis, lists, quotes or tables stay
 *   linear (marked took seconds, or overflowed the stack, on 100-200 KB of such text).
 * - `sanitize-html` on the result, an allow-list of tags and attributes, so that whatever the
 *   parser lets through (now or after an upgrade) holds no script, style, event handler, id,
 *   iframe or form, and no address but http(s) and mailto. Every link gets rel="nofollow noopener".
 *
 * Images are shown as links ("Image: alt"), never loaded: the page's CSP allows images from this
 * site only, and an image from elsewhere would tell that site who reads the paste.
 */
export type CodeHighlighter = (code: string, language: string) => string | undefined;

/**
 * The allow-list (public/markdown-rules.json) is shared with the browser, whose DOMPurify cleans
 * encrypted pastes, rendered there, by the same rules. Table column alignment: markdown-it writes
 * `style="text-align:right"`; only that survives.
 */
const sanitizeOptions: sanitizeHtml.IOptions = {
  allowedTags: rules.tags,
  allowedAttributes: rules.attributes,
  allowedStyles: {
    '*': Object.fromEntries(Object.entries(rules.styles).map(([name, pattern]) => [name, [new RegExp(pattern)]])),
  },
  allowedClasses: rules.classes,
  allowedSchemes: rules.schemes,
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: rules.linkRel }) },
};

export function createMarkdownRenderer(highlightCode: CodeHighlighter) {
  const markdown = new MarkdownIt('default', {
    html: false,
    linkify: true,
    typographer: false,
    // Returned markup that starts with <pre is used as it is.
    highlight: (block, language) => {
      // The fence's content ends with the newline before the closing fence: not part of the code.
      const code = block.replace(/\n$/, '');
      const name = language.trim().split(/\s+/)[0] ?? '';
      const highlighted = name ? highlightCode(code, name) : undefined;
      return `<pre><code class="hljs">${highlighted ?? escapeHtml(code)}</code></pre>\n`;
    },
  });
  markdown.renderer.rules.image = (tokens, index, options, env, self) => {
    const token = tokens[index]!;
    const alt = self.renderInlineAsText(token.children ?? [], options, env);
    const href = token.attrGet('src') ?? '';
    return `<a href="${escapeHtml(href)}">Image: ${escapeHtml(alt || href)}</a>`;
  };
  return (source: string): string => sanitizeHtml(markdown.render(source), sanitizeOptions);
}
