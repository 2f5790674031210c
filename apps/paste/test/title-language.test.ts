import { documentOf } from '@app/ui/testing/dom';
import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { startTestSite, type TestSite } from './helpers.js';

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site?.close();
});
beforeEach(async () => {
  await site.reset();
});

async function create(body: Record<string, unknown>) {
  const response = await site.http.post('/api/paste').send(body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { slug: string; title: string | null; language: string };
}

describe(`title and language of a paste (${testDatabaseBackend()})`, () => {
  it('stores the title and language and answers them', async () => {
    const created = await create({ content: 'print("hi")', title: 'My script', language: 'python' });
    expect(created).toMatchObject({ title: 'My script', language: 'python' });
    const { rows } = await site.database.pool.query('SELECT title, language FROM pastes WHERE slug = $1', [
      created.slug,
    ]);
    expect(rows).toEqual([{ title: 'My script', language: 'python' }]);
  });

  it('defaults to no title and language auto; a blank title is no title', async () => {
    expect(await create({ content: 'x' })).toMatchObject({ title: null, language: 'auto' });
    expect(await create({ content: 'x', title: '   ', language: '' })).toMatchObject({ title: null, language: 'auto' });
  });

  test.each([
    ['auto', 'auto'],
    ['plaintext', 'plaintext'],
    ['markdown', 'markdown'],
    ['text', 'plaintext'],
    ['md', 'markdown'],
    ['javascript', 'javascript'],
    ['js', 'javascript'],
    ['TypeScript', 'typescript'],
    ['sh', 'bash'],
    ['c++', 'cpp'],
    ['html', 'xml'],
    ['haskell', 'haskell'],
    ['dockerfile', 'dockerfile'],
  ])('accepts language %s (stored as %s)', async (given, stored) => {
    expect((await create({ content: 'x', language: given })).language).toBe(stored);
  });

  test.each(['klingon', 'javascript2', '<script>', 'auto detect', 42, ['js']])(
    'refuses language %s with 400 and a readable message',
    async (language) => {
      const response = await site.http.post('/api/paste').send({ content: 'x', language });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('Validation failed');
      expect(response.body.details.language).toMatch(/^language must be /);
      expect(response.body.details.language).not.toMatch(/expected|received|Invalid input/);
    },
  );

  it('takes a title of up to 200 characters and refuses a longer one', async () => {
    expect((await create({ content: 'x', title: 't'.repeat(200) })).title).toBe('t'.repeat(200));
    const response = await site.http.post('/api/paste').send({ content: 'x', title: 't'.repeat(201) });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      details: { title: 'title must be at most 200 characters long' },
    });
    expect((await site.database.pool.query('SELECT count(*)::int AS n FROM pastes')).rows[0].n).toBe(1);
  });

  it('takes title and language from a form post too', async () => {
    const response = await site.http
      .post('/api/paste')
      .type('form')
      .send({ content: 'a: 1', title: 'Config', language: 'yaml' });
    expect(response.body).toMatchObject({ title: 'Config', language: 'yaml' });
  });

  it('shows the title on the page and as its <title>, escaped', async () => {
    const { slug } = await create({ content: 'x', title: '<b>Notes</b> & "plans"' });
    const page = await site.http.get(`/paste/${slug}`).expect(200);
    const document = documentOf(page.text);
    expect(document.title).toMatch(/^<b>Notes<\/b> & "plans" · /);
    expect(document.querySelector('h1')!.textContent).toBe('<b>Notes</b> & "plans"');
    expect(document.querySelector('h1 b')).toBeNull();
  });

  it('highlights in the chosen language, with line numbers apart from the code, a Copy button and a Raw link', async () => {
    // Too short for auto-detection to be sure of anything: the choice decides.
    const { slug } = await create({ content: 'x = 1\ny = 2', language: 'python' });
    const document = documentOf((await site.http.get(`/paste/${slug}`).expect(200)).text);
    expect(document.querySelector('.paste-meta')!.textContent).toContain('Python');
    expect(document.querySelector('#paste-code .hljs-number')).not.toBeNull();
    expect(document.querySelector('#paste-code')!.textContent).toBe('x = 1\ny = 2');
    const gutter = document.querySelector('.gutter')!;
    expect(gutter.textContent).toBe('1\n2');
    expect(gutter.getAttribute('aria-hidden')).toBe('true');
    expect(gutter.contains(document.querySelector('#paste-code'))).toBe(false);
    expect(document.querySelector('button#copy-button')!.textContent).toBe('Copy');
    expect(document.querySelector('a[href$="/raw"]')!.getAttribute('href')).toBe(`/paste/${slug}/raw`);
  });

  it('shows plaintext as it is, without guessing', async () => {
    const code = 'const x = require("fs");\nfunction f() { return x; }\n';
    const { slug } = await create({ content: code, language: 'plaintext' });
    const document = documentOf((await site.http.get(`/paste/${slug}`).expect(200)).text);
    expect(document.querySelector('#paste-code')!.innerHTML).not.toContain('hljs-');
    expect(document.querySelector('#paste-code')!.textContent).toBe(code);
  });
});

describe(`Markdown pastes (${testDatabaseBackend()})`, () => {
  const hostile = [
    '# Release notes',
    '',
    'Some **bold**, some _emphasis_ and `inline code`.',
    '',
    '<script>alert("script")</script>',
    '',
    '<img src=x onerror=alert(1)>',
    '',
    '[x](javascript:alert(1)) and [y](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) and [site](https://example.com)',
    '',
    '<a href="https://example.org" onclick="alert(2)" style="color:red">raw link</a> <iframe src="https://example.net"></iframe>',
    '',
    '- one',
    '- two',
    '',
    '> quoted',
    '',
    '```js',
    'const answer = 42;',
    '```',
    '',
    '![logo](https://example.com/logo.png)',
  ].join('\n');

  it('renders sanitised HTML: no script, no event handler, no javascript: or data: links; safe formatting kept', async () => {
    const { slug } = await create({ content: hostile, language: 'markdown', title: 'Notes' });
    const page = await site.http.get(`/paste/${slug}`).expect(200);
    const document = documentOf(page.text);
    const body = document.querySelector('.markdown-body')!;
    expect(body).not.toBeNull();

    // Nothing that runs.
    expect(body.querySelectorAll('script, iframe, img, style, object, embed').length).toBe(0);
    expect(page.text).not.toMatch(/<script>alert|<img src=x/);
    for (const element of [...body.querySelectorAll('*')]) {
      for (const attribute of [...element.attributes]) {
        expect(attribute.name.startsWith('on'), `${element.tagName} ${attribute.name}`).toBe(false);
        expect(attribute.name).not.toBe('style');
        expect(attribute.value).not.toMatch(/^\s*(javascript|data|vbscript):/i);
      }
    }
    const links = [...body.querySelectorAll('a')];
    expect(links.filter((link) => link.hasAttribute('href')).map((link) => link.getAttribute('href')))
      // The addresses inside the raw HTML (shown as text) are linked like any address in text.
      .toEqual(['https://example.com', 'https://example.org', 'https://example.net', 'https://example.com/logo.png']);
    for (const link of links) expect(link.getAttribute('rel')).toBe('nofollow noopener');

    // What is safe stays.
    expect(body.querySelector('h1')!.textContent).toBe('Release notes');
    expect(body.querySelector('strong')!.textContent).toBe('bold');
    expect(body.querySelector('em')!.textContent).toBe('emphasis');
    expect(body.querySelector('p code')!.textContent).toBe('inline code');
    expect([...body.querySelectorAll('ul li')].map((item) => item.textContent)).toEqual(['one', 'two']);
    expect(body.querySelector('blockquote')!.textContent.trim()).toBe('quoted');
    expect(body.querySelector('pre code')!.textContent).toBe('const answer = 42;');
    expect(body.querySelector('pre code .hljs-keyword')).not.toBeNull();
    // Raw HTML is shown as the text it is, inert.
    expect(body.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(body.textContent).toContain(
      '<a href="https://example.org" onclick="alert(2)" style="color:red">raw link</a>',
    );
    expect(links.find((link) => link.textContent === 'Image: logo')).toBeDefined();

    // The Copy button copies the source, which the page holds as text.
    const copy = document.querySelector('#copy-button')!;
    expect(document.getElementById(copy.getAttribute('data-target')!)!.textContent).toBe(hostile);
  });

  it('serves the source on the raw view, unchanged', async () => {
    const { slug } = await create({ content: hostile, language: 'markdown' });
    const raw = await site.http.get(`/paste/${slug}/raw`).expect(200);
    expect(raw.headers['content-type']).toMatch(/^text\/plain/);
    expect(raw.text).toBe(hostile);
  });

  it('keeps table alignment and nothing else of a style; a very long Markdown paste is shown as its source', async () => {
    const { slug } = await create({ content: '| a | b |\n|---|--:|\n| 1 | 2 |', language: 'markdown' });
    const document = documentOf((await site.http.get(`/paste/${slug}`).expect(200)).text);
    expect(document.querySelector('.markdown-body td:last-child')!.getAttribute('style')).toBe('text-align:right');
    const long = await create({ content: '**bold** '.repeat(6_000), language: 'markdown' });
    const source = documentOf((await site.http.get(`/paste/${long.slug}`).expect(200)).text);
    expect(source.querySelector('.markdown-body')).toBeNull();
    expect(source.querySelector('#paste-code')!.textContent).toBe('**bold** '.repeat(6_000));
  });

  it('renders hostile Markdown (deep nesting, runaway emphasis) quickly and without an error', async () => {
    for (const content of [
      '>'.repeat(40_000) + ' x',
      '*a'.repeat(15_000),
      '- '.repeat(24_000) + 'x',
      '['.repeat(10_000) + 'a' + ']('.repeat(10_000),
      '['.repeat(20_000) + 'a' + ']('.repeat(20_000),
    ]) {
      const { slug } = await create({ content, language: 'markdown' });
      const started = Date.now();
      await site.http.get(`/paste/${slug}`).expect(200);
      expect(Date.now() - started).toBeLessThan(3_000);
    }
  });

  it('is rendered even with syntax highlighting off (code blocks are then plain)', async () => {
    await site.settings.update({ syntaxHighlighting: false });
    const { slug } = await create({ content: '*hi*\n\n```js\nlet a;\n```', language: 'markdown' });
    const document = documentOf((await site.http.get(`/paste/${slug}`).expect(200)).text);
    expect(document.querySelector('.markdown-body em')!.textContent).toBe('hi');
    expect(document.querySelector('.markdown-body pre code')!.innerHTML).toBe('let a;');
  });
});

describe('the language list of the web form', () => {
  it('names languages in their usual spelling: PHP, TOML/INI', async () => {
    const document = documentOf((await site.http.get('/').expect(200)).text);
    const labels = [...document.querySelectorAll('select[name="language"] option')].map((option) => option.textContent);
    expect(labels).toContain('PHP');
    expect(labels).toContain('TOML/INI');
    expect(labels).not.toContain('php');
    expect(labels).not.toContain('TOML, also INI');
  });
});
