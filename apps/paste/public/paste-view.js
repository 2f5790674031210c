// An end-to-end encrypted paste's page: decrypts the envelope with the key in the link's fragment
// (and the password, when the paste has one), then renders it as the server renders plain pastes:
// markdown-it and highlight.js of the same versions, and DOMPurify with the server's own
// allow-list (markdown-rules.json) as the second wall. The text never leaves the page.
// A paste made with a key check (decisions.md wave 4) comes without its envelope: this script
// fetches it with the key's verifier in X-Paste-Key-Check, the one request that counts a view,
// and never sends a request without a key, so a link whose fragment was lost spends nothing.
import { DECRYPT_ERROR, KEY_CHECK_HEADER, keyCheck, needsPassword, open } from './envelope.js';
import { decryptFileStream, fileKeyMaterial, plainFileSize } from './file-stream.js';

// The page's words, in its language (window.ui.t: the layout's #page-messages).
const t = (key, vars) => window.ui.t(key, vars);
const MISSING_KEY = t('keyMissing');
const WRONG_KEY = t('keyWrong');

const DETECT_SAMPLE = 2000;
const MAX_HIGHLIGHT_CHARS = 100000;
const MIN_RELEVANCE = 5;
const MAX_MARKDOWN_CHARS = 50000;

const card = document.getElementById('encrypted-paste');
const status = document.getElementById('decrypt-status');
const form = document.getElementById('decrypt-form');
const formBox = document.getElementById('decrypt-box');
const body = document.getElementById('paste-body');
const source = document.getElementById('paste-source');

const say = (text, error) => {
  status.textContent = text;
  status.className = error ? 'alert alert-error' : 'muted';
  status.hidden = false;
};

const escapeHtml = (text) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** Loads a language highlight.js's browser build leaves out, from the same package; false when there is none. */
function loadLanguage(name) {
  if (window.hljs.getLanguage(name)) return Promise.resolve(true);
  if (!/^[a-z0-9_-]+$/i.test(name)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const script = document.createElement('script');
    script.src = `/static/vendor/highlight/languages/${name}.min.js`;
    script.onload = () => resolve(Boolean(window.hljs.getLanguage(name)));
    script.onerror = () => resolve(false);
    document.head.appendChild(script);
  });
}

/** DOMPurify set to the allow-list of sanitize-html on the server (markdown-rules.json). */
function createSanitizer(rules) {
  const purify = window.DOMPurify();
  const attributesOf = (tag) => rules.attributes[tag] || [];
  const classAllowed = (tag, name) =>
    (rules.classes[tag] || []).some((allowed) =>
      allowed.endsWith('*') ? name.startsWith(allowed.slice(0, -1)) : name === allowed,
    );
  const styles = Object.entries(rules.styles).map(([name, pattern]) => [name, new RegExp(pattern)]);
  const schemes = rules.schemes;
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    const tag = node.nodeName.toLowerCase();
    if (data.attrName === 'class') {
      const kept = data.attrValue.split(/\s+/).filter((name) => name && classAllowed(tag, name));
      data.attrValue = kept.join(' ');
      data.keepAttr = kept.length > 0;
      return;
    }
    if (!attributesOf(tag).includes(data.attrName)) {
      data.keepAttr = false;
      return;
    }
    if (data.attrName === 'style') {
      const kept = data.attrValue
        .split(';')
        .map((part) => part.split(':').map((piece) => piece.trim()))
        .filter(([name, value]) => styles.some(([allowed, pattern]) => allowed === name && pattern.test(value || '')))
        .map(([name, value]) => `${name}:${value}`);
      data.attrValue = kept.join(';');
      data.keepAttr = kept.length > 0;
      return;
    }
    if (data.attrName === 'href') {
      const value = data.attrValue.trim();
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value);
      // No scheme: a relative address, as sanitize-html lets through, but never protocol-relative.
      data.keepAttr = scheme ? schemes.includes(scheme[1].toLowerCase()) : !value.startsWith('//');
    }
  });
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') node.setAttribute('rel', rules.linkRel);
  });
  const config = {
    ALLOWED_TAGS: rules.tags,
    ALLOWED_ATTR: ['class', ...new Set(Object.values(rules.attributes).flat())],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  };
  return (html) => purify.sanitize(html, config);
}

/** markdown-it as the server sets it up (src/rendering/markdown.ts). */
function createMarkdown(sanitize, highlightCode) {
  const markdown = window.markdownit('default', {
    html: false,
    linkify: true,
    typographer: false,
    highlight: (block, language) => {
      const code = block.replace(/\n$/, '');
      const name = language.trim().split(/\s+/)[0] || '';
      const highlighted = name ? highlightCode(code, name) : undefined;
      return `<pre><code class="hljs">${highlighted === undefined ? escapeHtml(code) : highlighted}</code></pre>\n`;
    },
  });
  markdown.renderer.rules.image = (tokens, index, options, env, self) => {
    const token = tokens[index];
    const alt = self.renderInlineAsText(token.children || [], options, env);
    const href = token.attrGet('src') || '';
    return `<a href="${escapeHtml(href)}">Image: ${escapeHtml(alt || href)}</a>`;
  };
  return (text) => sanitize(markdown.render(text));
}

const isMarkdownGrammar = (name) => window.hljs.getLanguage(name) === window.hljs.getLanguage('markdown');

/** What the server's highlighter (src/rendering/highlight.ts) makes of a paste, in the same steps. */
async function render(paste, rules) {
  const hljs = window.hljs;
  const highlight = card.dataset.highlight === 'true';
  const language = paste.language || 'auto';
  const content = paste.content;
  const lines = content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
  if (language === 'markdown') {
    if (content.length > MAX_MARKDOWN_CHARS) return { html: escapeHtml(content), label: t('markdownTooLong'), lines };
    const fenced = [
      ...new Set(
        [...content.matchAll(/^ {0,3}(?:```|~~~)\s*([A-Za-z0-9_+#-]+)/gm)].map((match) => match[1].toLowerCase()),
      ),
    ];
    if (highlight) await Promise.all(fenced.map(loadLanguage));
    const highlightCode = (code, name) =>
      highlight && hljs.getLanguage(name) && !isMarkdownGrammar(name)
        ? hljs.highlight(code, { language: name, ignoreIllegals: true }).value
        : undefined;
    return {
      html: createMarkdown(createSanitizer(rules), highlightCode)(content),
      label: 'Markdown',
      lines,
      markdown: true,
    };
  }
  if (language === 'plaintext') return { html: escapeHtml(content), label: t('plainText'), lines };
  if (!highlight || content.length > MAX_HIGHLIGHT_CHARS) return { html: escapeHtml(content), lines };
  if (language !== 'auto' && (await loadLanguage(language))) {
    return {
      html: hljs.highlight(content, { language, ignoreIllegals: true }).value,
      label: hljs.getLanguage(language).name,
      lines,
    };
  }
  const candidates = card.dataset.autoDetect.split(' ').filter((name) => hljs.getLanguage(name));
  const guess = hljs.highlightAuto(content.slice(0, DETECT_SAMPLE), candidates);
  if (guess.language && guess.relevance >= MIN_RELEVANCE) {
    const highlighted =
      content.length <= DETECT_SAMPLE
        ? guess
        : hljs.highlight(content, { language: guess.language, ignoreIllegals: true });
    return { html: highlighted.value, label: guess.language, lines };
  }
  return { html: escapeHtml(content), lines };
}

async function show(paste) {
  const rules = await fetch('/static/markdown-rules.json').then((response) => response.json());
  const rendered = await render(paste, rules);
  if (paste.title) {
    document.getElementById('paste-title').textContent = paste.title;
    document.title = `${paste.title} · ${document.title.split(' · ').slice(1).join(' · ')}`;
  }
  if (rendered.label) document.getElementById('paste-language').textContent = ` · ${rendered.label}`;
  source.value = paste.content;
  if (rendered.markdown) {
    // Sanitised above by the server's allow-list.
    body.innerHTML = `<article class="markdown-body">${rendered.html}</article>`;
  } else {
    const numbers = Array.from({ length: rendered.lines }, (_, index) => index + 1).join('\n');
    // highlight.js escapes the text it wraps; plain text is escaped above.
    body.innerHTML =
      `<div class="code"><pre class="gutter" aria-hidden="true">${numbers}</pre>` +
      `<pre class="code-body"><code id="paste-code" class="hljs">${rendered.html}</code></pre></div>`;
    document.getElementById('copy-button').setAttribute('data-target', 'paste-code');
  }
  status.hidden = true;
  formBox.hidden = true;
  document.getElementById('copy-button').hidden = false;
  card.dataset.state = 'shown';
}

const sizeText = (bytes) => {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  // The number in the page's language ("68,4 KB" in German), the unit symbols as everywhere.
  const digits = unit === 0 ? 0 : 1;
  const number = new Intl.NumberFormat(document.documentElement.lang || 'en', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value);
  return `${number} ${units[unit]}`;
};

/**
 * The paste's files (attachments, decisions.md wave 4): names and types from inside the envelope,
 * sizes and download URLs (10 minutes) from the view just counted. A download button fetches the
 * file and decrypts it as it streams in (file-stream.js), then saves it under its name.
 */
function showFiles(attachments, names, key, password, salt) {
  if (!attachments || attachments.length === 0) return;
  const box = document.getElementById('paste-files-box');
  const list = document.getElementById('paste-file-list');
  const fileStatus = document.getElementById('file-status');
  const material = fileKeyMaterial(key, { password, salt });
  attachments.forEach((file, index) => {
    const entry = (names && names[index]) || {};
    const name = (entry.name || `file-${index + 1}`).replace(/[\\/]/g, '_');
    let size = file.size;
    try {
      size = plainFileSize(file.size);
    } catch {
      // Not a size the format makes: the download will say the file is damaged.
    }
    const item = document.createElement('li');
    const label = document.createElement('span');
    label.className = 'file-name';
    label.textContent = name;
    const sizeLabel = document.createElement('span');
    sizeLabel.className = 'muted small';
    sizeLabel.textContent = ` ${sizeText(size)} `;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'button button-ghost';
    button.textContent = t('download');
    button.setAttribute('aria-label', t('downloadFile', { name }));
    button.addEventListener('click', async () => {
      button.disabled = true;
      fileStatus.textContent = t('downloading', { name });
      try {
        const response = await fetch(file.url);
        if (!response.ok)
          throw new Error(
            response.status === 403 ? 'the link has expired: reload the page' : `status ${response.status}`,
          );
        let received = 0;
        const counted = response.body.pipeThrough(
          new TransformStream({
            transform(chunk, controller) {
              received += chunk.byteLength;
              fileStatus.textContent = `${t('downloading', { name })} ${Math.round((received / Math.max(file.size, 1)) * 100)}%`;
              controller.enqueue(chunk);
            },
          }),
        );
        const blob = await new window.Response(counted.pipeThrough(decryptFileStream(await material))).blob();
        const url = window.URL.createObjectURL(
          new window.Blob([blob], { type: entry.type || 'application/octet-stream' }),
        );
        const link = document.createElement('a');
        link.href = url;
        link.download = name;
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(() => window.URL.revokeObjectURL(url), 60_000);
        fileStatus.textContent = t('saved', { name });
      } catch (error) {
        fileStatus.textContent =
          error && error.name === 'DecryptError'
            ? `${name}: ${DECRYPT_ERROR}`
            : t('downloadFailed', { name, error: error && error.message ? error.message : error });
      } finally {
        button.disabled = false;
      }
    });
    item.append(label, sizeLabel, button);
    list.appendChild(item);
  });
  box.hidden = false;
}

async function decrypt(envelope, key, password) {
  try {
    const opened = await open(envelope, key, password);
    await show(opened);
    const embeddedFiles = document.getElementById('paste-files');
    const attachments = envelope.attachments || (embeddedFiles ? JSON.parse(embeddedFiles.textContent) : []);
    showFiles(attachments, opened.files, key, password, envelope.salt);
  } catch (error) {
    if (error && error.name === 'DecryptError') {
      say(password !== undefined ? `${DECRYPT_ERROR} (is the password right?)` : DECRYPT_ERROR, true);
      card.dataset.state = 'failed';
      if (needsPassword(envelope)) formBox.hidden = false;
      return;
    }
    say(t('showFailed', { error: error && error.message ? error.message : error }), true);
    card.dataset.state = 'failed';
  }
}

/** The counts of the view just counted, as the raw answer gives them. */
function showCounts(response) {
  const views = Number(response.headers.get('X-Paste-Views'));
  const max = response.headers.get('X-Paste-Max-Views');
  if (!Number.isInteger(views)) return;
  document.getElementById('paste-views').textContent =
    max === null ? window.ui.tCount('views', views) : t('viewsOf', { count: views, max });
  if (max !== null && views >= Number(max)) document.getElementById('last-view').hidden = false;
}

/**
 * The envelope of a paste with a key check: one POST to its raw view (it serves reveal-on-click
 * pastes too) with the key's verifier; the session carries a password unlock. Undefined when
 * the server refused, after saying why.
 */
async function fetchEnvelope(key) {
  let check;
  try {
    check = await keyCheck(key);
  } catch {
    // Not a key at all (cut short, mistyped): nothing to ask the server.
    return failKey(WRONG_KEY);
  }
  let response;
  try {
    response = await fetch(`/paste/${encodeURIComponent(card.dataset.slug)}/raw`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { [KEY_CHECK_HEADER]: check, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: '{}',
    });
  } catch {
    say(t('serverUnreachable'), true);
    card.dataset.state = 'failed';
    return undefined;
  }
  if (response.status === 403) return failKey(WRONG_KEY);
  if (!response.ok) {
    const text = (await response.text()).trim();
    say(text || t('loadFailed', { status: response.status }), true);
    card.dataset.state = 'failed';
    return undefined;
  }
  showCounts(response);
  return response.json();
}

function failKey(message) {
  say(message, true);
  card.dataset.state = 'no-key';
  return undefined;
}

async function start() {
  const embedded = document.getElementById('paste-envelope');
  const key = decodeURIComponent(window.location.hash.replace(/^#/, ''));
  if (!window.isSecureContext || !window.crypto || !window.crypto.subtle) {
    say(t('needsHttps'), true);
    card.dataset.state = 'failed';
    return;
  }
  if (key === '') {
    if (!embedded) return failKey(MISSING_KEY);
    say(t('noKey'), true);
    card.dataset.state = 'failed';
    return;
  }
  const envelope = embedded ? JSON.parse(embedded.textContent) : await fetchEnvelope(key);
  if (!envelope) return;
  say(t('decrypting'), false);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    say(t('decrypting'), false);
    decrypt(envelope, key, form.elements.password.value);
  });
  if (!needsPassword(envelope)) return decrypt(envelope, key);
  // The password form before this page left it here for this page only (app.js); it is read once.
  const slug = card.dataset.slug;
  const stashed = window.sessionStorage.getItem(`paste-password:${slug}`);
  window.sessionStorage.removeItem(`paste-password:${slug}`);
  if (stashed) return decrypt(envelope, key, stashed);
  say(t('passwordKey'), false);
  formBox.hidden = false;
}

start();
