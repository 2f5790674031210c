import type PDFDocumentClass from 'pdfkit';
import type { ExportOutput } from './export-output.js';
import {
  fallbackFontBytes,
  fallbackRise,
  FONT_FILES,
  loadFontkit,
  runsLength,
  sliceRuns,
  textRuns,
  type FallbackFont,
  type TextRun,
} from './pdf-fonts.js';

export interface PdfColumn<Row> {
  label: string;
  width: number;
  value: (row: Row) => string;
  align?: 'left' | 'right';
  /** `shrink`: a smaller font instead of cutting the text (license keys must stay whole and searchable). */
  overflow?: 'clip' | 'shrink';
}

// Fonts: DejaVu Sans Condensed with Noto Sans SC (Han, kana) and Noto Sans KR (Hangul) as
// fallbacks, cut into runs by textRuns (see pdf-fonts.ts). Every piece of text is measured and
// drawn run by run with the run's font.
const FONT = 'Body';
const BOLD = 'Body-Bold';

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
    if (font && typeof font === 'object' && 'layoutCache' in font)
      Reflect.set(font, 'layoutCache', Object.create(null));
  }
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
let PDFDocument: typeof PDFDocumentClass | undefined;

export class PdfReport {
  /**
   * A report; pdfkit and fontkit are loaded at the first one: some 45 MB of memory that a
   * service which never exports a PDF should not hold (docs/performance.md).
   */
  static async create(title: string, output: ExportOutput, options: { landscape?: boolean; now: Date }) {
    const [pdfkit] = await Promise.all([import('pdfkit'), loadFontkit()]);
    const Document = (PDFDocument ??= pdfkit.default);
    return new PdfReport(title, output, options, Document);
  }

  private readonly doc: PDFKit.PDFDocument;
  private readonly pending: Buffer[] = [];
  private readonly ended: Promise<void>;
  private page = 0;
  private y = 0;
  private tableHeader?: () => void;
  private readonly fallbacksRegistered = new Set<FallbackFont>();

  private constructor(
    private readonly title: string,
    private readonly output: ExportOutput,
    options: { landscape?: boolean; now: Date },
    Document: typeof PDFDocumentClass,
  ) {
    this.doc = new Document({
      size: 'A4',
      layout: options.landscape ? 'landscape' : 'portrait',
      margin: MARGIN,
      autoFirstPage: false,
      info: { Title: title, Creator: 'License Service', CreationDate: options.now },
    });
    this.doc.registerFont(FONT, FONT_FILES.regular);
    this.doc.registerFont(BOLD, FONT_FILES.bold);
    this.doc.on('data', (chunk: Buffer) => this.pending.push(chunk));
    this.ended = new Promise((resolve, reject) => {
      this.doc.on('end', resolve);
      this.doc.on('error', reject);
    });
    this.newPage();
  }

  private get bottom() {
    return this.doc.page.height - MARGIN - 16;
  }
  private get width() {
    return this.doc.page.width - 2 * MARGIN;
  }

  private newPage(): void {
    emptyLayoutCaches(this.doc);
    this.doc.addPage();
    this.page += 1;
    this.y = MARGIN;
    // Drawn with lineBreak off, below the text area, so pdfkit never starts a page on its own.
    this.doc
      .font(FONT)
      .fontSize(7)
      .fillColor('#666666')
      .text(`${this.title}  ·  Page ${this.page}`, MARGIN, this.doc.page.height - MARGIN + 6, { lineBreak: false });
    this.doc.fillColor('black');
    this.tableHeader?.();
  }

  private ensureSpace(height: number): void {
    if (this.y + height > this.bottom) this.newPage();
  }

  /**
   * Sets the font of a run; a fallback font is registered with the document the first time it is
   * needed. Bold text in a fallback script uses its regular face (one file per script is enough).
   */
  private useFont(run: TextRun, bold: boolean): void {
    if (run.font === 'body') {
      this.doc.font(bold ? BOLD : FONT);
      return;
    }
    const name = `Fallback-${run.font}`;
    if (!this.fallbacksRegistered.has(run.font)) {
      this.doc.registerFont(name, fallbackFontBytes(run.font));
      this.fallbacksRegistered.add(run.font);
    }
    this.doc.font(name);
  }

  /** The width of the runs at the current font size. */
  private measure(runs: TextRun[], bold: boolean): number {
    let width = 0;
    for (const run of runs) {
      this.useFont(run, bold);
      width += this.doc.widthOfString(run.text);
    }
    return width;
  }

  /** Draws the runs one after the other from (x, y), fallback runs raised onto the body font's baseline. */
  private draw(runs: TextRun[], x: number, y: number, bold: boolean, size: number): void {
    for (const run of runs) {
      this.useFont(run, bold);
      this.doc.text(run.text, x, run.font === 'body' ? y : y - fallbackRise(run.font, size), { lineBreak: false });
      if (runs.length > 1) x += this.doc.widthOfString(run.text);
    }
  }

  private clip(runs: TextRun[], width: number, bold: boolean): TextRun[] {
    // Cheap test first: the body font's widest common glyphs stay under 0.72 em, CJK ones are 1 em.
    if (runs.reduce((sum, run) => sum + run.text.length * (run.font === 'body' ? 0.72 : 1), 0) * FONT_SIZE <= width)
      return runs;
    if (this.measure(runs, bold) <= width) return runs;
    const withEllipsis = (count: number): TextRun[] => {
      const head = sliceRuns(runs, count);
      const last = head[head.length - 1];
      if (last?.font === 'body') return [...head.slice(0, -1), { text: `${last.text}…`, font: 'body' }];
      return [...head, { text: '…', font: 'body' }];
    };
    let end = runsLength(runs);
    while (end > 1 && this.measure(withEllipsis(end), bold) > width) end -= 1;
    return withEllipsis(end);
  }

  heading(text: string, size = 16): void {
    this.ensureSpace(size + 8);
    this.doc.fontSize(size);
    this.draw(textRuns(text), MARGIN, this.y, true, size);
    this.y += size + 8;
  }

  line(text: string, size = 9): void {
    this.ensureSpace(size + 5);
    this.doc.fontSize(size);
    this.draw(textRuns(text), MARGIN, this.y, false, size);
    this.y += size + 5;
  }

  gap(height = 8): void {
    this.y += height;
  }

  /** Starts a table: its header is drawn now and again at the top of every following page. */
  beginTable<Row>(columns: PdfColumn<Row>[]): { rows(rows: Row[]): void; end(): void } {
    const scale = Math.min(1, this.width / columns.reduce((sum, column) => sum + column.width, 0));
    const widths = columns.map((column) => column.width * scale);
    let striped = false;
    const drawRow = (cells: string[], header: boolean) => {
      if (header) this.doc.rect(MARGIN, this.y, this.width, ROW_HEIGHT).fill('#2f3e4e');
      else if (striped) this.doc.rect(MARGIN, this.y, this.width, ROW_HEIGHT).fill('#f1f3f5');
      this.doc
        .font(header ? BOLD : FONT)
        .fontSize(FONT_SIZE)
        .fillColor(header ? 'white' : 'black');
      let x = MARGIN;
      cells.forEach((cell, index) => {
        const width = widths[index]! - 6;
        const column = columns[index]!;
        let runs = textRuns(cell);
        let size = FONT_SIZE;
        if (!header && column.overflow === 'shrink') {
          const natural = this.measure(runs, header);
          if (natural > width) this.doc.fontSize((size = Math.max(3, (FONT_SIZE * width) / natural)));
        } else {
          runs = this.clip(runs, width, header);
        }
        const offset = column.align === 'right' ? width - this.measure(runs, header) : 0;
        this.draw(runs, x + 3 + offset, this.y + 3.5, header, size);
        this.doc.fontSize(FONT_SIZE);
        x += widths[index]!;
      });
      this.doc.fillColor('black');
      this.y += ROW_HEIGHT;
    };
    this.tableHeader = () => {
      striped = false;
      drawRow(
        columns.map((column) => column.label),
        true,
      );
    };
    this.ensureSpace(ROW_HEIGHT * 2);
    this.tableHeader();
    return {
      rows: (rows) => {
        for (const row of rows) {
          this.ensureSpace(ROW_HEIGHT);
          drawRow(
            columns.map((column) => column.value(row)),
            false,
          );
          striped = !striped;
        }
      },
      end: () => {
        this.tableHeader = undefined;
        this.gap();
      },
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
