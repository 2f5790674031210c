import { Marked, type Tokens } from 'marked';
import sanitizeHtml from 'sanitize-html';
import { escapeHtml } from '@app/http';

/**
 * Markdown pastes as HTML: `marked` (GitHub-flavoured) turns the source into HTML, then
 * `sanitize-html` keeps only an allow-list of tags and attributes, whatever the source held
 * (raw HTML in Markdown is allowed by the format, so the sanitiser, not the parser, is the
 * safety line). What survives: text formatting, headings, lists, tables, quotes, code, links
 * with http(s)/mailto addresses (rel="nofollow noopener"). What never does: scripts, styles,
 * event handlers, iframes, forms, javascript: or data: addresses, id/style attributes.
 *
 * Images are shown as links, not loaded: the page's CSP allows images from this site only,
 * and an image from elsewhere would tell that site who reads the paste.
 */
export type CodeHighlighter = (code: string, language: string) => string | undefined;

const allowedTags = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'kbd', 'samp', 'var',
  'em', 'strong', 'b', 'i', 'u', 's', 'del', 'ins', 'mark', 'small', 'sub', 'sup', 'abbr', 'q', 'cite', 'span',
  'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption',
  'details', 'summary', 'a', 'input',
];

const sanitizeOptions: sanitizeHtml.IOptions = {
  allowedTags,
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    abbr: ['title'],
    ol: ['start'],
    th: ['align'],
    td: ['align'],
    // GitHub task lists: marked writes `<input type="checkbox" disabled>`.
    input: ['type', 'checked', 'disabled'],
  },
  allowedClasses: { code: ['hljs', 'language-*'], span: ['hljs-*'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  // The contents of these go with them (sanitize-html's default keeps the text of a dropped tag).
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'iframe', 'object', 'template'],
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener' }),
  },
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
};

export function createMarkdownRenderer(highlightCode: CodeHighlighter) {
  const marked = new Marked({
    gfm: true,
    async: false,
    renderer: {
      image({ href, title, text }: Tokens.Image) {
        const label = text || title || href;
        return `<a href="${escapeHtml(href)}">Image: ${escapeHtml(label)}</a>`;
      },
      code({ text, lang }: Tokens.Code) {
        const language = (lang ?? '').trim().split(/\s+/)[0] ?? '';
        const highlighted = language ? highlightCode(text, language) : undefined;
        return `<pre><code class="hljs">${highlighted ?? escapeHtml(text)}</code></pre>\n`;
      },
    },
  });
  return (source: string): string => sanitizeHtml(marked.parse(source, { async: false }), sanitizeOptions);
}
