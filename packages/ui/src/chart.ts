import { escapeHtml as escapeText } from '@app/http';
import { scaleLinear, scalePoint } from 'd3-scale';
import { area, line } from 'd3-shape';

/** One stack of a bar chart: its name in tooltips and legends, the CSS class that colours it, one value per label. */
export interface ChartSeries {
  name: string;
  className: string;
  values: number[];
}

export interface BarChartOptions {
  /** Unique in the page: the title's and description's ids derive from it. */
  id: string;
  /** The chart's accessible name (also the SVG's <title>). */
  title: string;
  /** What a screen reader hears after the name: the chart's message in words. */
  description: string;
  /** One per bar, oldest first (dates, say). */
  labels: string[];
  /** Stacked bottom first. */
  series: ChartSeries[];
  /** Pixel height of the drawing (default 200); the width is the container's. */
  height?: number;
  /** The heading of the labels' column in the chart's table of numbers (default "Date"). */
  labelHeading?: string;
}

const text = (value: unknown) => escapeText(value);

/**
 * The top of a count axis: the smallest 1, 2 or 5 times a power of ten that is at least `value`,
 * or up to 10 the next even number, so the half-way line is a whole count too (2 for 0).
 */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 2;
  if (value <= 10) return Math.max(2, Math.ceil(value / 2) * 2);
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

const percent = (value: number) => `${Number(value.toFixed(4))}%`;

/**
 * A stacked bar chart as SVG markup, drawn on the server (no script, no library). Horizontal
 * positions are percentages, so the bars fill any width while the text keeps its pixel size
 * (a viewBox would shrink the labels to nothing on a phone). Each bar carries a <title> with its
 * numbers for pointer users; the SVG is `role="img"` with a title and a description. Colours come
 * from the series' classes (ui.css: `.chart-success`, `.chart-failure`), so themes apply.
 * After the SVG comes its text equivalent: a visually hidden table of every bar's numbers, for
 * screen readers, which cannot reach the bars' tooltips inside an image.
 */
export function barChartSvg(options: BarChartOptions): string {
  const height = options.height ?? 200;
  const top = 18;
  const bottom = height - 26;
  const plot = bottom - top;
  const count = Math.max(1, options.labels.length);
  const totals = options.labels.map((_, index) =>
    options.series.reduce((sum, series) => sum + (series.values[index] ?? 0), 0),
  );
  const max = niceCeiling(Math.max(0, ...totals));
  const slot = 100 / count;
  const barWidth = slot * (count > 45 ? 0.8 : 0.66);
  const titleId = `${options.id}-title`;
  const descriptionId = `${options.id}-desc`;
  const parts: string[] = [
    `<svg class="chart" id="${text(options.id)}" role="img" aria-labelledby="${text(titleId)} ${text(descriptionId)}" width="100%" height="${height}" xmlns="http://www.w3.org/2000/svg">`,
    `<title id="${text(titleId)}">${text(options.title)}</title>`,
    `<desc id="${text(descriptionId)}">${text(options.description)}</desc>`,
  ];
  // Grid lines at 0, half and the top of the scale, each labelled above its line on the left.
  for (const fraction of [0, 0.5, 1]) {
    const y = bottom - plot * fraction;
    parts.push(`<line class="chart-grid" x1="0" x2="100%" y1="${y}" y2="${y}"/>`);
    if (fraction > 0)
      parts.push(
        `<text class="chart-axis" x="0" y="${y - 4}">${text((max * fraction).toLocaleString('en-US'))}</text>`,
      );
  }
  options.labels.forEach((label, index) => {
    const x = index * slot;
    const numbers = options.series
      .map((series) => `${(series.values[index] ?? 0).toLocaleString('en-US')} ${series.name}`)
      .join(', ');
    parts.push(`<g class="chart-bar"><title>${text(`${label}: ${numbers}`)}</title>`);
    // The whole column answers the pointer, not only the (maybe empty) bar.
    parts.push(`<rect class="chart-hit" x="${percent(x)}" y="${top}" width="${percent(slot)}" height="${plot}"/>`);
    let base = bottom;
    for (const series of options.series) {
      const value = series.values[index] ?? 0;
      if (value <= 0) continue;
      const barHeight = Math.max(1, (value / max) * plot);
      base -= barHeight;
      parts.push(
        `<rect class="${text(series.className)}" x="${percent(x + (slot - barWidth) / 2)}" y="${base.toFixed(2)}" width="${percent(barWidth)}" height="${barHeight.toFixed(2)}"/>`,
      );
    }
    parts.push('</g>');
  });
  // The first, middle and last labels under the axis.
  const marks = [...new Set([0, Math.floor((count - 1) / 2), count - 1])].filter(
    (index) => options.labels[index] !== undefined,
  );
  for (const index of marks) {
    const anchor = index === 0 ? 'start' : index === count - 1 ? 'end' : 'middle';
    const x = anchor === 'start' ? '0%' : anchor === 'end' ? '100%' : percent(index * slot + slot / 2);
    parts.push(
      `<text class="chart-axis" x="${x}" y="${height - 6}" text-anchor="${anchor}">${text(options.labels[index])}</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('') + chartTable(options);
}

/** The chart's numbers as a table, one row per bar (shown to screen readers only). */
function chartTable(options: BarChartOptions): string {
  const head = [options.labelHeading ?? 'Date', ...options.series.map((series) => series.name)]
    .map((name) => `<th scope="col">${text(name)}</th>`)
    .join('');
  const rows = options.labels
    .map(
      (label, index) =>
        `<tr><th scope="row">${text(label)}</th>${options.series
          .map((series) => `<td>${text((series.values[index] ?? 0).toLocaleString('en-US'))}</td>`)
          .join('')}</tr>`,
    )
    .join('');
  // In a hidden box: a table itself ignores the width and overflow that hide it.
  return `<div class="visually-hidden"><table id="${text(options.id)}-table"><caption>${text(options.title)}: the numbers</caption><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

export interface LineChartOptions {
  /** Unique in the page: the title's and description's ids derive from it. */
  id: string;
  title: string;
  description: string;
  /** One per point, oldest first (dates, say). */
  labels: string[];
  /** The line's name (the table's column) and its values, one per label. */
  series: ChartSeries;
  /** Pixel height of the drawing (default 200); the width is the container's. */
  height?: number;
  labelHeading?: string;
}

/**
 * A line chart (with the area under it) as SVG markup, drawn on the server with d3-scale and
 * d3-shape. The plot is a nested SVG whose viewBox stretches to any width
 * (`preserveAspectRatio="none"`, strokes kept at their width by `vector-effect`), while the
 * axis text sits outside it at percentages, so it keeps its pixel size. Like `barChartSvg`: a
 * titled `role="img"`, a tooltip per point, and a visually hidden table of the numbers after it.
 */
export function lineChartSvg(options: LineChartOptions): string {
  const height = options.height ?? 200;
  const top = 18;
  const bottom = height - 26;
  const width = 1000;
  const values = options.labels.map((_, index) => options.series.values[index] ?? 0);
  const y = scaleLinear()
    .domain([0, niceCeiling(Math.max(0, ...values))])
    .range([bottom, top]);
  const x = scalePoint<number>()
    .domain(values.map((_, index) => index))
    .range([0, width])
    .padding(0.5);
  const xOf = (index: number) => x(index) ?? 0;
  const path = line<number>()
    .x((_, index) => xOf(index))
    .y((value) => y(value))(values);
  const fill = area<number>()
    .x((_, index) => xOf(index))
    .y0(bottom)
    .y1((value) => y(value))(values);
  const titleId = `${options.id}-title`;
  const descriptionId = `${options.id}-desc`;
  const className = text(options.series.className);
  const parts: string[] = [
    `<svg class="chart chart-line" id="${text(options.id)}" role="img" aria-labelledby="${text(titleId)} ${text(descriptionId)}" width="100%" height="${height}" xmlns="http://www.w3.org/2000/svg">`,
    `<title id="${text(titleId)}">${text(options.title)}</title>`,
    `<desc id="${text(descriptionId)}">${text(options.description)}</desc>`,
  ];
  for (const tick of [0, y.domain()[1]! / 2, y.domain()[1]!]) {
    const at = y(tick);
    parts.push(`<line class="chart-grid" x1="0" x2="100%" y1="${at}" y2="${at}"/>`);
    if (tick > 0)
      parts.push(`<text class="chart-axis" x="0" y="${at - 4}">${text(tick.toLocaleString('en-US'))}</text>`);
  }
  parts.push(
    `<svg x="0" y="0" width="100%" height="${height}" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none">`,
  );
  if (fill) parts.push(`<path class="${className} chart-area" d="${fill}"/>`);
  if (path) parts.push(`<path class="${className} chart-stroke" d="${path}" vector-effect="non-scaling-stroke"/>`);
  const slot = width / Math.max(1, values.length);
  values.forEach((value, index) => {
    parts.push(
      `<g class="chart-bar"><title>${text(`${options.labels[index]}: ${value.toLocaleString('en-US')} ${options.series.name}`)}</title>` +
        `<rect class="chart-hit" x="${(xOf(index) - slot / 2).toFixed(2)}" y="${top}" width="${slot.toFixed(2)}" height="${bottom - top}"/></g>`,
    );
  });
  parts.push('</svg>');
  const count = options.labels.length;
  const marks = [...new Set([0, Math.floor((count - 1) / 2), count - 1])].filter(
    (index) => options.labels[index] !== undefined,
  );
  for (const index of marks) {
    const anchor = index === 0 ? 'start' : index === count - 1 ? 'end' : 'middle';
    const position = anchor === 'start' ? '0%' : anchor === 'end' ? '100%' : percent((xOf(index) / width) * 100);
    parts.push(
      `<text class="chart-axis" x="${position}" y="${height - 6}" text-anchor="${anchor}">${text(options.labels[index])}</text>`,
    );
  }
  parts.push('</svg>');
  return (
    parts.join('') +
    chartTable({
      id: options.id,
      title: options.title,
      description: options.description,
      labels: options.labels,
      series: [options.series],
      labelHeading: options.labelHeading,
    })
  );
}
