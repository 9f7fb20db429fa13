import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BenchReport, renderBenchReport } from "./bench-report.js";
import { renderLinePlot } from "./svg-line-plot.js";

/** Writes `README.md` and every plot into `dir` (replacing the SVGs of an earlier run); returns the paths written. */
export function writeBenchReport(report: BenchReport, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(dir)) if (file.endsWith(".svg")) rmSync(join(dir, file));
  const written = report.plots.map((plot) => {
    const path = join(dir, plot.file);
    writeFileSync(path, renderLinePlot(plot.plot));
    return path;
  });
  const readme = join(dir, "README.md");
  writeFileSync(readme, renderBenchReport(report));
  return [readme, ...written];
}
