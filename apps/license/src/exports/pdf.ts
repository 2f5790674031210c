import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';
import PDFDocument from 'pdfkit';
import type { ExportOutput } from './export-output.js';

export interface PdfColumn<Row> {
  label: string; width: number; value: (row: Row) => string; align?: 'left' | 'right';
  /** `shrink`: a smaller font instead of cutting the text (license keys must stay whole and searchable). */
  overflow?: 'clip' | 'shrink';
}

// The text is set in DejaVu Sans Condensed (npm `dejavu-fonts-ttf`, free licence), embedded and
// subset by pdfkit, so names in Latin, Greek, Cyrillic, Arabic, Hebrew and many more scripts print
// as they are. It has no CJK glyphs: a character the font lacks is shown as '?' rather than as an
// empty box. The files are found through node_modules, so no font file is copied into the repo.
const require = createRequire(import.meta.url);
const FONT_FILES = {
  regular: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf'),
  bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf'),
};
const FONT = 'Body';
const BOLD = 'Body-Bold';

let coverage: { has(codePoint: number): boolean } | undefined;
/** Which characters both faces can draw (read once from the regular face; the bold one has the same coverage). */
function fontCoverage() {
  if (!coverage) {
    const font = fontkit.openSync(FONT_FILES.regular);
    if (!('hasGlyphForCodePoint' in font)) throw new Error('the report font is a collection, not one face');
    coverage = { has: (codePoint) => font.hasGlyphForCodePoint(codePoint) };
  }
  return coverage;
}

/**
 * pdfkit caches the layout of every distinct word of an embedded font for the whole document
 * (`EmbeddedFont.layoutCache`): with a license key per row, memory would grow with the row count.
 * Without the cache every cell is shaped again, about three times as slow as Helvetica was. So the
 * cache is kept and emptied at each new page: repeated words (product names, types, states) are
 * shaped once a page, and memory stays flat. pdfkit keeps its fonts in `_fontFamilies`.
 */
function emptyLayoutCaches(doc: object): void {
  const fonts: unknown = Reflect.get(doc, '_fontFamilies');
  if (!fonts || typeof fonts !== 'object') return;
  for (const font of Object.values(fonts)) {
    if (font && typeof font === 'object' && 'layoutCache' in font) Reflect.set(font, 'layoutCache', Object.create(null));
  }
}

/** The text with control characters dropped and every character the font cannot draw shown as '?'. */
export function pdfText(text: string): string {
  const font = fontCoverage();
  let out = '';
  for (const char of text.replace(/[\p{Cc}]/gu, ' ')) out += font.has(char.codePointAt(0)!) ? char : '?';
  return out;
}

const FONT_SIZE = 7.5;
const ROW_HEIGHT = 13;
const MARGIN = 36;

/**
 * A PDF report written to the output page by page: pdfkit (without bufferPages) hands over each
 * page when the next one starts, and `flush()` passes those bytes on with backpressure, so only
 * the page being drawn is kept in memory. Tables continue over pages with their header repeated;
 * every page carries the title and its number at the bottom.
 */
export class PdfReport {
  private readonly doc: PDFKit.PDFDocument;
  private readonly pending: Buffer[] = [];
  private readonly ended: Promise<void>;
  private page = 0;
  private y = 0;
  private tableHeader?: () => void;

  constructor(private readonly title: string, private readonly output: ExportOutput, options: { landscape?: boolean; now: Date }) {
    this.doc = new PDFDocument({
      size: 'A4', layout: options.landscape ? 'landscape' : 'portrait', margin: MARGIN, autoFirstPage: false,
      info: { Title: title, Creator: 'License Service', CreationDate: options.now },
    });
    this.doc.registerFont(FONT, FONT_FILES.regular);
    this.doc.registerFont(BOLD, FONT_FILES.bold);
    this.doc.on('data', (chunk: Buffer) => this.pending.push(chunk));
    this.ended = new Promise((resolve, reject) => { this.doc.on('end', resolve); this.doc.on('error', reject); });
    this.newPage();
  }

  private get bottom() { return this.doc.page.height - MARGIN - 16; }
  private get width() { return this.doc.page.width - 2 * MARGIN; }

  private newPage(): void {
    emptyLayoutCaches(this.doc);
    this.doc.addPage();
    this.page += 1;
    this.y = MARGIN;
    // Drawn with lineBreak off, below the text area, so pdfkit never starts a page on its own.
    this.doc.font(FONT).fontSize(7).fillColor('#666666')
      .text(`${this.title}  ·  Page ${this.page}`, MARGIN, this.doc.page.height - MARGIN + 6, { lineBreak: false });
    this.doc.fillColor('black');
    this.tableHeader?.();
  }

  private ensureSpace(height: number): void {
    if (this.y + height > this.bottom) this.newPage();
  }

  private clip(text: string, width: number): string {
    // Cheap test first: the font's widest common glyphs stay under 0.72 em.
    if (text.length * FONT_SIZE * 0.72 <= width) return text;
    if (this.doc.widthOfString(text) <= width) return text;
    let end = text.length;
    while (end > 1 && this.doc.widthOfString(`${text.slice(0, end)}…`) > width) end -= 1;
    return `${text.slice(0, end)}…`;
  }

  heading(text: string, size = 16): void {
    this.ensureSpace(size + 8);
    this.doc.font(BOLD).fontSize(size).text(pdfText(text), MARGIN, this.y, { lineBreak: false });
    this.y += size + 8;
  }

  line(text: string, size = 9): void {
    this.ensureSpace(size + 5);
    this.doc.font(FONT).fontSize(size).text(pdfText(text), MARGIN, this.y, { lineBreak: false });
    this.y += size + 5;
  }

  gap(height = 8): void { this.y += height; }

  /** Starts a table: its header is drawn now and again at the top of every following page. */
  beginTable<Row>(columns: PdfColumn<Row>[]): { rows(rows: Row[]): void; end(): void } {
    const scale = Math.min(1, this.width / columns.reduce((sum, column) => sum + column.width, 0));
    const widths = columns.map((column) => column.width * scale);
    let striped = false;
    const drawRow = (cells: string[], header: boolean) => {
      if (header) this.doc.rect(MARGIN, this.y, this.width, ROW_HEIGHT).fill('#2f3e4e');
      else if (striped) this.doc.rect(MARGIN, this.y, this.width, ROW_HEIGHT).fill('#f1f3f5');
      this.doc.font(header ? BOLD : FONT).fontSize(FONT_SIZE).fillColor(header ? 'white' : 'black');
      let x = MARGIN;
      cells.forEach((cell, index) => {
        const width = widths[index]! - 6;
        const column = columns[index]!;
        let text = pdfText(cell);
        if (!header && column.overflow === 'shrink') {
          const natural = this.doc.widthOfString(text);
          if (natural > width) this.doc.fontSize(Math.max(3, (FONT_SIZE * width) / natural));
        } else {
          text = this.clip(text, width);
        }
        const offset = column.align === 'right' ? width - this.doc.widthOfString(text) : 0;
        this.doc.text(text, x + 3 + offset, this.y + 3.5, { lineBreak: false });
        this.doc.fontSize(FONT_SIZE);
        x += widths[index]!;
      });
      this.doc.fillColor('black');
      this.y += ROW_HEIGHT;
    };
    this.tableHeader = () => { striped = false; drawRow(columns.map((column) => column.label), true); };
    this.ensureSpace(ROW_HEIGHT * 2);
    this.tableHeader();
    return {
      rows: (rows) => {
        for (const row of rows) {
          this.ensureSpace(ROW_HEIGHT);
          drawRow(columns.map((column) => column.value(row)), false);
          striped = !striped;
        }
      },
      end: () => { this.tableHeader = undefined; this.gap(); },
    };
  }

  /** Passes the finished pages on; resolves when the output has taken them. False when the client left. */
  async flush(): Promise<boolean> {
    // pdfkit pushes page data through its stream on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pending.length) {
      if (!(await this.output.write(this.pending.shift()!))) return false;
    }
    return true;
  }

  async end(): Promise<boolean> {
    this.doc.end();
    await this.ended;
    return this.flush();
  }
}
