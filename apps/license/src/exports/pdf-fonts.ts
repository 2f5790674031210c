import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Fontkit from 'fontkit';

// The text is set in DejaVu Sans Condensed (npm `dejavu-fonts-ttf`, free licence): Latin, Greek,
// Cyrillic, Arabic, Hebrew and many more scripts. It has no CJK glyphs, and pdfkit has no font
// fallback, so text is cut into runs: what DejaVu lacks is drawn with the first fallback that has
// it, Noto Sans SC (npm `@expo-google-fonts/noto-sans-sc`, OFL-1.1: Chinese ideographs, Japanese
// kana), then Noto Sans KR (`@expo-google-fonts/noto-sans-kr`: Hangul). A character no font has
// is shown as '?' rather than an empty box. pdfkit embeds a subset of each font, so a PDF only grows by the glyphs it uses.
// The files are found through node_modules, so no font file is copied into the repo.
const require = createRequire(import.meta.url);
export const FONT_FILES = {
  regular: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf'),
  bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf'),
  han: require.resolve('@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf'),
  hangul: require.resolve('@expo-google-fonts/noto-sans-kr/400Regular/NotoSansKR_400Regular.ttf'),
};

/** The fallback fonts, in the order they are tried. */
export const FALLBACK_FONTS = ['han', 'hangul'] as const;
export type FallbackFont = (typeof FALLBACK_FONTS)[number];

/** A piece of text drawn with one font: the body font (DejaVu) or a fallback. */
export interface TextRun {
  text: string;
  font: 'body' | FallbackFont;
}

interface LoadedFont {
  has(codePoint: number): boolean;
  ascender: number;
}

let fontkit: typeof Fontkit | undefined;

/** fontkit, loaded with pdfkit at the first report (PdfReport.create). */
export async function loadFontkit(): Promise<void> {
  fontkit ??= await import('fontkit');
}

function load(bytes: Buffer): LoadedFont {
  if (!fontkit) throw new Error('loadFontkit() before measuring text');
  const font = fontkit.create(bytes);
  if (!('hasGlyphForCodePoint' in font)) throw new Error('the report font is a collection, not one face');
  return { has: (codePoint) => font.hasGlyphForCodePoint(codePoint), ascender: (font.ascent / font.unitsPerEm) * 1000 };
}

// Each is read once per process, when first needed: a fallback file (6–10 MB) only when a text
// holds a character the fonts before it lack. Coverage is read from the regular DejaVu face (the
// bold one has the same).
let body: LoadedFont | undefined;
const fallbacks = new Map<FallbackFont, { font: LoadedFont; bytes: Buffer }>();
const bodyFont = () => (body ??= load(readFileSync(FONT_FILES.regular)));
function fallbackFont(name: FallbackFont) {
  let loaded = fallbacks.get(name);
  if (!loaded) {
    const bytes = readFileSync(FONT_FILES[name]);
    loaded = { bytes, font: load(bytes) };
    fallbacks.set(name, loaded);
  }
  return loaded;
}

/** A fallback font file's bytes, read once per process and handed to every document that needs them. */
export const fallbackFontBytes = (name: FallbackFont) => fallbackFont(name).bytes;

/**
 * How far (in points, at `size`) a fallback run must be raised to share the body font's baseline:
 * pdfkit places text by the top of the font's ascender, and Noto's ascender is taller.
 */
export const fallbackRise = (name: FallbackFont, size: number) =>
  ((fallbackFont(name).font.ascender - bodyFont().ascender) / 1000) * size;

/**
 * The text cut into runs by the font that draws each character: control characters become spaces,
 * a character neither font has becomes '?'. Text DejaVu covers entirely is one run.
 */
export function textRuns(text: string): TextRun[] {
  const runs: TextRun[] = [];
  let current = '';
  let currentFont: TextRun['font'] = 'body';
  for (let char of text.replace(/[\p{Cc}]/gu, ' ')) {
    const codePoint = char.codePointAt(0)!;
    let font: TextRun['font'] = 'body';
    if (!bodyFont().has(codePoint)) {
      const fallback = FALLBACK_FONTS.find((name) => fallbackFont(name).font.has(codePoint));
      if (fallback) font = fallback;
      else char = '?';
    }
    if (font !== currentFont && current) {
      runs.push({ text: current, font: currentFont });
      current = '';
    }
    currentFont = font;
    current += char;
  }
  if (current || !runs.length) runs.push({ text: current, font: currentFont });
  return runs;
}

/** The first `count` characters (code points) of the runs. */
export function sliceRuns(runs: TextRun[], count: number): TextRun[] {
  const out: TextRun[] = [];
  let left = count;
  for (const run of runs) {
    if (left <= 0) break;
    const chars = [...run.text];
    out.push(chars.length <= left ? run : { text: chars.slice(0, left).join(''), font: run.font });
    left -= chars.length;
  }
  return out;
}

export const runsLength = (runs: TextRun[]) => runs.reduce((sum, run) => sum + [...run.text].length, 0);
