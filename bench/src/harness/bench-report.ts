import { type BenchScale, scaledMs } from "./bench-scale.js";
import type { TargetOutcome } from "./bench-target.js";
import { CONTENDED_WARM_UP_MS, CONTENDED_WINDOW_MS } from "./contended-scenario.js";
import type { MachineInfo } from "./machine-info.js";
import { renderMarkdownTable } from "./markdown-table.js";
import type { GroupResult } from "./run-scenario-groups.js";
import type { SweepPlot } from "./sweep-plots.js";

/** Everything one full run produced. */
export interface BenchReport {
  /** The command that produced it, as a reader would type it. */
  readonly command: string;
  readonly startedAt: Date;
  readonly durationS: number;
  readonly machine: MachineInfo;
  /** 1, 5 and 15 minute load averages when the run ended. */
  readonly loadAtEnd: readonly number[];
  /** How much of every scenario the run measured. */
  readonly scale: BenchScale;
  readonly groups: readonly GroupResult[];
  readonly plots: readonly SweepPlot[];
}

const VERDICT = { true: "met", false: "**not met**", undefined: "not measured" } as const;

/** The report as Markdown, plots linked as files next to it. */
export function renderBenchReport(report: BenchReport): string {
  const { machine } = report;
  const load = (values: readonly number[]) => values.map((v) => v.toFixed(2)).join(" / ");
  const lines = [
    "# Benchmarks",
    "",
    `Produced by \`${report.command}\` from the repository root on ${report.startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC, in ${Math.round(report.durationS)} s.`,
    "This file and the SVG plots next to it are written by that command; do not edit them by hand, run it again.",
    "Every server is started for the run on 127.0.0.1 (random ports, temp dirs) and every subject runs against the same server side by side.",
    ...quickWarning(report.scale),
    "",
    "## Machine",
    "",
    "| | |",
    "|---|---|",
    `| CPU | ${machine.cpu}, ${machine.cores} cores |`,
    `| memory | ${machine.memoryGiB.toFixed(1)} GiB |`,
    `| OS | ${machine.kernel} |`,
    `| Node | ${machine.node} |`,
    ...Object.entries(machine.servers).map(([name, version]) => `| ${name} | ${version} |`),
    `| libraries | ${Object.entries(machine.libraries)
      .map(([name, version]) => `${name} ${version}`)
      .join(", ")} |`,
    `| load average (1 / 5 / 15 min) | ${load(machine.loadAtStart)} at start, ${load(report.loadAtEnd)} at end |`,
    "",
    `The machine is shared: other engineers' test runs may have been loading its ${machine.cores} cores during this run (see the load average),`,
    "so absolute numbers are noisy; the ratios between subjects measured in the same table, minutes apart, are the thing to read.",
    "Each group runs in a fresh Node process, so no group measures on the heap, timers or sockets an earlier group left behind.",
    "",
    "## Targets",
    "",
    "Checked automatically against the tables below (the target in the issue's words, what was measured, the verdict).",
    "",
    ...report.groups.flatMap((group) => (group.targets.length === 0 ? [] : targetTable(group.name, group.targets))),
    "## Plots",
    "",
    `Contended hand-off (W workers over 4 OS processes loop acquire+release on one key, empty critical section, ${scaledMs(CONTENDED_WINDOW_MS, report.scale) / 1000} s window per point, after ${scaledMs(CONTENDED_WARM_UP_MS, report.scale) / 1000} s of the same loop as warm-up).`,
    "Hand-off rate is acquisitions per second; wait is the time from a worker's acquire call to its grant (p99 of the acquisitions granted in the window);",
    "requests per acquisition are what the server received from the clients, divided by the acquisitions in the window.",
    "A subject whose workers livelocked (see `stuck workers` in its table) shows almost no acquisitions, and its wait covers only the few that got through.",
    "",
    ...plotSections(report.plots),
    "## Results",
    "",
    "Every table as the run printed it. The last column divides the named metric by the baseline subject's.",
    "",
    ...report.groups.flatMap((group) => [
      `### ${group.name}`,
      "",
      ...group.tables.flatMap((table) => [renderMarkdownTable(table).replace(/^### /, "#### "), ""]),
    ]),
  ];
  return `${lines.join("\n").trimEnd()}\n`;
}

function quickWarning(scale: BenchScale): string[] {
  if (!scale.quick) return [];
  return [
    "",
    `**Quick run** (\`DISTLOCK_BENCH_QUICK=1\`): counts ÷ ${scale.countDivisor}, time windows ÷ ${scale.windowDivisor}, contended W ≤ ${scale.maxWorkers};`,
    "enough to see every table render, too few samples to compare subjects. Targets at a W that did not run show as not measured.",
  ];
}

function targetTable(group: string, targets: readonly TargetOutcome[]): string[] {
  return [
    `**${group}**`,
    "",
    "| target | measured | verdict |",
    "|---|---|---|",
    ...targets.map((t) => `| ${t.claim} | ${t.measured} | ${VERDICT[`${t.met}`]} |`),
    "",
  ];
}

function plotSections(plots: readonly SweepPlot[]): string[] {
  const systems = [...new Set(plots.map((p) => p.system))];
  return systems.flatMap((system) => {
    const own = plots.filter((p) => p.system === system);
    const uncounted = own.some((p) => p.file.endsWith("-requests-per-acquisition.svg"))
      ? []
      : ["", "No requests-per-acquisition plot: this backend's scenarios have no server-side request counter."];
    return [`### ${system}`, "", ...own.map((p) => `![${p.plot.title}](${p.file})`), ...uncounted, ""];
  });
}
