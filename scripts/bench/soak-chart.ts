// The soak's curve (`npm run bench:soak`): two panels over the run's minutes, each service's
// resident memory and its p99 latency, drawn as SVG with d3-scale and d3-shape and rasterised to
// PNG with resvg (a Rust renderer shipped as a prebuilt Node binary: no system tool needed).
import { Resvg } from '@resvg/resvg-js';
import { scaleLinear } from 'd3-scale';
import { line } from 'd3-shape';

/** One sample window: when it ended (minutes since the load began) and what was read for each service. */
export interface SoakSample {
  minute: number;
  rssMb: Record<string, number>;
  p99Ms: Record<string, number>;
}

export interface SoakChartOptions {
  title: string;
  samples: SoakSample[];
  services: string[];
  /** Minutes of warm-up, shaded: the growth check starts after them. */
  warmupMinutes: number;
}

const width = 960;
const panelHeight = 260;
const margin = { top: 56, right: 150, bottom: 44, left: 64 };
const colours = ['#1f6feb', '#d9480f', '#2f9e44', '#862e9c'];
const escapeXml = (value: string) =>
  value.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);

/** The top of an axis: the next 1, 2 or 5 times a power of ten above the largest value (and some room). */
function axisTop(values: number[]): number {
  const largest = Math.max(1, ...values) * 1.15;
  const power = 10 ** Math.floor(Math.log10(largest));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= largest)!;
}

function panel(
  options: SoakChartOptions,
  offsetY: number,
  heading: string,
  unit: string,
  valueOf: (sample: SoakSample, service: string) => number,
): string {
  const innerWidth = width - margin.left - margin.right;
  const innerHeight = panelHeight - 60;
  const lastMinute = Math.max(1, ...options.samples.map((sample) => sample.minute));
  const x = scaleLinear().domain([0, lastMinute]).range([0, innerWidth]);
  // The axis fits the windows after the warm-up (the first requests of a start can take seconds);
  // a warm-up value above it is drawn at the top.
  const judged = options.samples.filter((sample) => sample.minute > options.warmupMinutes);
  const top = axisTop(
    (judged.length ? judged : options.samples).flatMap((sample) =>
      options.services.map((name) => valueOf(sample, name)),
    ),
  );
  const y = scaleLinear().domain([0, top]).range([innerHeight, 0]).clamp(true);
  const parts: string[] = [`<g transform="translate(${margin.left},${offsetY})">`];
  parts.push(`<text x="0" y="-12" font-size="15" font-weight="bold">${escapeXml(heading)}</text>`);
  parts.push(
    `<rect x="0" y="0" width="${x(Math.min(options.warmupMinutes, lastMinute))}" height="${innerHeight}" fill="#f1f3f5"/>`,
    `<text x="6" y="16" font-size="11" fill="#555">warm-up</text>`,
  );
  for (const tick of y.ticks(5)) {
    parts.push(
      `<line x1="0" x2="${innerWidth}" y1="${y(tick)}" y2="${y(tick)}" stroke="#dee2e6"/>`,
      `<text x="-8" y="${y(tick) + 4}" font-size="11" text-anchor="end">${tick}</text>`,
    );
  }
  for (const tick of x.ticks(Math.min(15, lastMinute))) {
    parts.push(`<text x="${x(tick)}" y="${innerHeight + 18}" font-size="11" text-anchor="middle">${tick}</text>`);
  }
  parts.push(
    `<line x1="0" x2="${innerWidth}" y1="${innerHeight}" y2="${innerHeight}" stroke="#495057"/>`,
    `<text x="${innerWidth / 2}" y="${innerHeight + 36}" font-size="12" text-anchor="middle">minutes of load</text>`,
    `<text transform="translate(-46,${innerHeight / 2}) rotate(-90)" font-size="12" text-anchor="middle">${escapeXml(unit)}</text>`,
  );
  options.services.forEach((service, index) => {
    const path = line<SoakSample>()
      .x((sample) => x(sample.minute))
      .y((sample) => y(valueOf(sample, service)))(options.samples);
    const colour = colours[index % colours.length]!;
    parts.push(`<path d="${path ?? ''}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const sample of options.samples)
      parts.push(`<circle cx="${x(sample.minute)}" cy="${y(valueOf(sample, service))}" r="2.5" fill="${colour}"/>`);
    parts.push(
      `<line x1="${innerWidth + 16}" x2="${innerWidth + 40}" y1="${20 + index * 20}" y2="${20 + index * 20}" stroke="${colour}" stroke-width="3"/>`,
      `<text x="${innerWidth + 46}" y="${24 + index * 20}" font-size="12">${escapeXml(service)}</text>`,
    );
  });
  parts.push('</g>');
  return parts.join('\n');
}

/** The chart as SVG markup. */
export function soakChartSvg(options: SoakChartOptions): string {
  const height = margin.top + 2 * panelHeight;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${margin.left}" y="26" font-size="17" font-weight="bold">${escapeXml(options.title)}</text>`,
    panel(options, margin.top + 24, 'Resident memory (RSS)', 'MB', (sample, service) => sample.rssMb[service] ?? 0),
    panel(
      options,
      margin.top + 24 + panelHeight,
      'p99 latency of each window',
      'ms',
      (sample, service) => sample.p99Ms[service] ?? 0,
    ),
    '</svg>',
  ].join('\n');
}

/** The chart as PNG bytes. */
export function soakChartPng(options: SoakChartOptions): Buffer {
  return new Resvg(soakChartSvg(options), { font: { loadSystemFonts: true }, background: '#ffffff' }).render().asPng();
}
