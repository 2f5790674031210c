import { describe, expect, it } from 'vitest';
import { escapeHtml, html, raw } from '../src/index.js';

describe('html template', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const name = `<script>alert("x")</script>' onload='x`;
    expect(html`<p title="${name}">${name}</p>`.html).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x</p>',
    );
  });

  it('composes nested templates and arrays, and renders nothing for false, null and undefined', () => {
    const items = ['a&b', '<i>'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}${false}${null}${undefined}</ul>`.html).toBe('<ul><li>a&amp;b</li><li>&lt;i&gt;</li></ul>');
  });

  it('passes raw markup of our own through unchanged', () => {
    expect(html`${raw('<br>')}${'<br>'}`.html).toBe('<br>&lt;br&gt;');
    expect(escapeHtml(42)).toBe('42');
  });
});
