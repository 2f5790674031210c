import { describe, expect, it } from 'vitest';
import { formatBytes, fromAcceptLanguage, isLocalPath, negotiateLanguage, translator } from '../src/index.js';

describe('negotiateLanguage', () => {
  it.each([
    ['de-AT,de;q=0.9,en;q=0.5', 'de'],
    ['en-US,en;q=0.9', 'en'],
    ['fr-CH, fr;q=0.9, en;q=0.8', 'fr'],
    ['nl,es;q=0.7,de;q=0.3', 'es'],
    ['en;q=0.2,ja;q=0.8', 'ja'],
    ['ar-EG', 'ar'],
    ['zh-CN,*;q=0.5', undefined],
    ['de;q=0,fr;q=0.1', 'fr'],
    ['', undefined],
  ])('Accept-Language %j → %s', (header, expected) => {
    expect(fromAcceptLanguage(header)).toBe(expected);
  });

  it('prefers the switcher cookie, then the header, else English', () => {
    expect(negotiateLanguage({ cookie: 'a=1; lang=ja; b=2', 'accept-language': 'de' })).toBe('ja');
    expect(negotiateLanguage({ cookie: 'lang=xx', 'accept-language': 'de' })).toBe('de');
    expect(negotiateLanguage({})).toBe('en');
  });
});

describe('isLocalPath', () => {
  it.each([
    ['/', true],
    ['/paste/abc?x=1', true],
    ['//evil.example', false],
    ['/\\evil.example', false],
    ['https://evil.example/', false],
    ['javascript:alert(1)', false],
    ['/a\nb', false],
    ['', false],
  ])('%j → %s', (value, expected) => {
    expect(isLocalPath(value)).toBe(expected);
  });
});

describe('translator and formats', () => {
  it('translates the kit strings with placeholders, English for a missing key', () => {
    expect(translator('de')('ui.signedInAs', { name: 'Ada' })).toBe('Angemeldet als Ada');
    expect(translator('ar')('ui.language')).toBe('اللغة');
    expect(translator('de')('no.such.key')).toBe('no.such.key');
  });

  it('formats sizes in the language', () => {
    expect(formatBytes('en', 512)).toBe('512 byte');
    expect(formatBytes('de', 1536)).toBe('1,5 kB');
  });
});
