import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';

// The text is set in DejaVu Sans Condensed (npm `dejavu-fonts-ttf`, free licence): Latin, Greek,
// Cyrillic, Arabic, Hebrew and many more scripts. It has no CJK glyphs, and pdfkit has no font
// fallback, so text is cut into runs: what DejaVu lacks but Noto Sans SC (npm
// `@expo-google-fonts/noto-sans-sc`, OFL-1.1: Chinese ideographs, Japanese kana, no Hangul) has
// is drawn with Noto Sans SC. A character neither font has is shown as '?' rather than an empty
// box. pdfkit embeds a subset of each font, so a PDF only grows by the glyphs it uses.
// The files are found through node_modules, so no font file is copied into the repo.
const require = createRequire(import.meta.url);
export const FONT_FILES = {
  regular: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf'),
  bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf'),
  cjk: require.resolve('@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf'),
};

/** A piece of text drawn with one font: the body font (DejaVu) or the CJK fallback (Noto Sans SC). */
export interface TextRun { text: string; cjk: boolean }

interface LoadedFont { has(codePoint: number): boolean; ascender: number }

function load(bytes: Buffer): LoadedFont {
  const font = fontkit.create(bytes);
  if (!('hasGlyphForCodePoint' in font)) throw new Error('the report font is a collection, not one face');
  return { has: (codePoint) => font.hasGlyphForCodePoint(codePoint), ascender: (font.ascent / font.unitsPerEm) * 1000 };
}

// Both are read once per process, when first needed: the CJK file (10 MB) only when a text holds a
// character DejaVu lacks. Coverage is read from the regular DejaVu face (the bold one has the same).
let body: LoadedFont | undefined;
let cjk: { font: LoadedFont; bytes: Buffer } | undefined;
const bodyFont = () => (body ??= load(readFileSync(FONT_FILES.regular)));
function cjkFont() {
  if (!cjk) { const bytes = readFileSync(FONT_FILES.cjk); cjk = { bytes, font: load(bytes) }; }
  return cjk;
}

/** The CJK font file's bytes, read once per process and handed to every document that needs them. */
export const cjkFontBytes = () => cjkFont().bytes;

/**
 * How far (in points, at `size`) a CJK run must be raised to share the body font's baseline:
 * pdfkit places text by the top of the font's ascender, and Noto's ascender is taller.
 */
export const cjkRise = (size: number) => ((cjkFont().font.ascender - bodyFont().ascender) / 1000) * size;

/**
 * The text cut into runs by the font that draws each character: control characters become spaces,
 * a character neither font has becomes '?'. Text DejaVu covers entirely is one run.
 */
export function textRuns(text: string): TextRun[] {
  const runs: TextRun[] = [];
  let current = '';
  let currentCjk = false;
  for (let char of text.replace(/[\p{Cc}]/gu, ' ')) {
    const codePoint = char.codePointAt(0)!;
    let isCjk = false;
    if (!bodyFont().has(codePoint)) {
      if (cjkFont().font.has(codePoint)) isCjk = true;
      else char = '?';
    }
    if (isCjk !== currentCjk && current) { runs.push({ text: current, cjk: currentCjk }); current = ''; }
    currentCjk = isCjk;
    current += char;
  }
  if (current || !runs.length) runs.push({ text: current, cjk: currentCjk });
  return runs;
}

/** The first `count` characters (code points) of the runs. */
export function sliceRuns(runs: TextRun[], count: number): TextRun[] {
  const out: TextRun[] = [];
  let left = count;
  for (const run of runs) {
    if (left <= 0) break;
    const chars = [...run.text];
    out.push(chars.length <= left ? run : { text: chars.slice(0, left).join(''), cjk: run.cjk });
    left -= chars.length;
  }
  return out;
}

export const runsLength = (runs: TextRun[]) => runs.reduce((sum, run) => sum + [...run.text].length, 0);
