/** One line of a plot. */
export interface PlotSeries {
  readonly name: string;
  /** [x, y] points; NaN or non-positive values (on a log axis) are left out. */
  readonly points: readonly (readonly [number, number])[];
}

/** A line plot with a log₂ x axis (the number of waiters) and a linear or log₁₀ y axis. */
export interface LinePlot {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly PlotSeries[];
  /** @default false */
  readonly logY?: boolean;
}

const WIDTH = 640;
const PLOT = { left: 72, right: 616, top: 44, bottom: 300 };
/** Keeps the outermost markers off the axes. */
const X_INSET = 24;
const LEGEND_LINE = 18;
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];

/** The plot as a standalone SVG document (no fonts or scripts to load). */
export function renderLinePlot(plot: LinePlot): string {
  const logY = plot.logY === true;
  const series = plot.series.map((s) => ({ ...s, points: s.points.filter(([x, y]) => Number.isFinite(y) && x > 0 && (!logY || y > 0)) }));
  const xs = [...new Set(series.flatMap((s) => s.points.map(([x]) => x)))].sort((a, b) => a - b);
  const ys = series.flatMap((s) => s.points.map(([, y]) => y));
  const [x0, x1] = [Math.log2(xs[0] ?? 1), Math.log2(xs.at(-1) ?? 2)];
  const xAt = (x: number) => PLOT.left + X_INSET + (x1 === x0 ? 0.5 : (Math.log2(x) - x0) / (x1 - x0)) * (PLOT.right - PLOT.left - 2 * X_INSET);
  const yTicks = logY ? logTicks(ys) : linearTicks(ys);
  const [y0, y1] = [yTicks[0] ?? 0, yTicks.at(-1) ?? 1];
  const scale = (y: number) => (logY ? Math.log10(y) : y);
  const yAt = (y: number) => PLOT.bottom - ((scale(y) - scale(y0)) / (scale(y1) - scale(y0) || 1)) * (PLOT.bottom - PLOT.top);
  const height = PLOT.bottom + 56 + series.length * LEGEND_LINE;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(plot.title)}</text>`,
  ];
  for (const y of yTicks) {
    const at = yAt(y).toFixed(1);
    out.push(`<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${at}" y2="${at}" stroke="#e0e0e0"/>`);
    out.push(`<text x="${PLOT.left - 6}" y="${at}" text-anchor="end" dominant-baseline="middle">${tickLabel(y)}</text>`);
  }
  for (const x of xs) {
    const at = xAt(x).toFixed(1);
    out.push(`<line x1="${at}" x2="${at}" y1="${PLOT.top}" y2="${PLOT.bottom}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${at}" y="${PLOT.bottom + 16}" text-anchor="middle">${tickLabel(x)}</text>`);
  }
  out.push(`<polyline points="${PLOT.left},${PLOT.top} ${PLOT.left},${PLOT.bottom} ${PLOT.right},${PLOT.bottom}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${(PLOT.left + PLOT.right) / 2}" y="${PLOT.bottom + 36}" text-anchor="middle">${escapeXml(plot.xLabel)}</text>`);
  const yMid = (PLOT.top + PLOT.bottom) / 2;
  out.push(`<text x="16" y="${yMid}" text-anchor="middle" transform="rotate(-90 16 ${yMid})">${escapeXml(plot.yLabel)}${logY ? " (log scale)" : ""}</text>`);
  series.forEach((s, index) => {
    const color = COLORS[index % COLORS.length];
    const points = s.points.map(([x, y]) => `${xAt(x).toFixed(1)},${yAt(y).toFixed(1)}`);
    out.push(`<polyline points="${points.join(" ")}" fill="none" stroke="${color}" stroke-width="2.5"/>`);
    for (const point of points) out.push(`<circle cx="${point.split(",")[0]}" cy="${point.split(",")[1]}" r="4" fill="${color}"/>`);
    const legendY = PLOT.bottom + 58 + index * LEGEND_LINE;
    out.push(`<line x1="${PLOT.left}" x2="${PLOT.left + 24}" y1="${legendY}" y2="${legendY}" stroke="${color}" stroke-width="2.5"/>`);
    out.push(`<circle cx="${PLOT.left + 12}" cy="${legendY}" r="4" fill="${color}"/>`);
    out.push(`<text x="${PLOT.left + 32}" y="${legendY}" dominant-baseline="middle">${escapeXml(s.name)}</text>`);
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** 0 to a round number above the largest value, in 4–8 round steps. */
function linearTicks(values: readonly number[]): number[] {
  const max = Math.max(0, ...values) || 1;
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => i * step);
}

/** Powers of ten around the values (at least two). */
function logTicks(values: readonly number[]): number[] {
  if (values.length === 0) return [1, 10];
  const low = Math.floor(Math.log10(Math.min(...values.filter((v) => v > 0))));
  const high = Math.max(low + 1, Math.ceil(Math.log10(Math.max(...values))));
  return Array.from({ length: high - low + 1 }, (_, i) => 10 ** (low + i));
}

function tickLabel(value: number): string {
  if (value >= 1000) return value.toLocaleString("en-US");
  return Number(value.toPrecision(3)).toString();
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
