import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createViews } from '../src/index.js';

// Templates are compiled without `with (locals)`: the names their code reads are declared from
// the locals instead. These pin what a template may rely on.
const folder = mkdtempSync(path.join(os.tmpdir(), 'ui-views-'));
const write = (name: string, text: string) => {
  mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
  writeFileSync(path.join(folder, name), text);
};
write('layouts/main.ejs', '<main data-title="<%= title %>"><%- body %></main>');
write('locals.ejs', '<%= name %>|<%= Math.max(a, b) %>|<%= JSON.stringify(list.map((x) => x * 2)) %>|<%= item.name %>');
write('shadow.ejs', '<% const title = "inner"; %><%= title %>');
write('optional.ejs', '<% if (typeof note !== "undefined") { %>note: <%= note %><% } else { %>no note<% } %>');
write('partials/label.ejs', '<label><%= label %> for <%= name %></label>');
write(
  'with-include.ejs',
  '<%- include("partials/label", { label: "Name" }) %><%- include("partials/label", { label: "Other", name: "b" }) %>',
);
write('escape.ejs', '<p title="<%= text %>"><%= text %></p><%- markup %>');
write('loop.ejs', '<% for (const row of rows) { let shown = row.toUpperCase(); %><%= shown %>,<% } %>');
write('missing.ejs', '[<%= absent %>]');
const views = createViews({ folders: [folder] });
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('createViews', () => {
  it('reads the locals by name, and globals stay the globals', () => {
    expect(
      views.render('locals', { layout: false, name: 'Ada', a: 2, b: 5, list: [1, 2], item: { name: 'thing' } }),
    ).toBe('Ada|5|[2,4]|thing');
  });

  it('puts the page in its layout, which sees the same data', () => {
    expect(views.render('shadow', { title: 'Outer' })).toBe('<main data-title="Outer">inner</main>');
  });

  it("lets the template's own declarations shadow a local of the same name", () => {
    expect(views.render('shadow', { layout: false, title: 'outer' })).toBe('inner');
    expect(views.render('loop', { layout: false, rows: ['a', 'b'], shown: 'local' })).toBe('A,B,');
  });

  it('answers typeof for a local that is there and one that is not', () => {
    expect(views.render('optional', { layout: false, note: 'hi' })).toBe('note: hi');
    expect(views.render('optional', { layout: false })).toBe('no note');
  });

  it("gives an include the caller's data with the include's own on top", () => {
    expect(views.render('with-include', { layout: false, name: 'a' })).toBe(
      '<label>Name for a</label><label>Other for b</label>',
    );
  });

  it('escapes <%= %> (quotes too) and leaves <%- %> as it is', () => {
    expect(views.render('escape', { layout: false, text: '<b>"x" & \'y\'</b>', markup: '<i>ok</i>' })).toBe(
      '<p title="&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;">&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;</p><i>ok</i>',
    );
  });

  it('prints nothing for a local the data lacks', () => {
    expect(views.render('missing', { layout: false })).toBe('[]');
  });
});

describe('ui/flash', () => {
  write('flash-page.ejs', '<%- include("ui/flash", { messages }) %>');
  it('reads errors out at once and the rest politely, and names the fields an error is about', () => {
    const html = views.render('flash-page', {
      layout: false,
      messages: [
        { type: 'success', text: 'Saved.' },
        { type: 'error', text: 'Check these fields: credits.', fields: ['credits', 'ipLimit'] },
        { type: 'error', text: 'Something else.' },
      ],
    });
    expect(html).toContain('<div class="alert alert-success" role="status">Saved.</div>');
    expect(html).toContain(
      '<div class="alert alert-error" role="alert" id="flash-error-1" data-fields="credits ipLimit">Check these fields: credits.</div>',
    );
    expect(html).toContain('<div class="alert alert-error" role="alert" id="flash-error-2">Something else.</div>');
  });
});
