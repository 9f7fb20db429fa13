/**
 * Session mode against its floors in many short turns: `node bench/dist/sql/session-floor-rounds.js [rounds] [per turn]`.
 *
 * The group's uncontended table gives each subject six turns; on a shared 2-core VM a burst of other work in one turn
 * moves that subject's median by ±30%. Here the floor and session mode take 40 turns of 250 acquire+release each (by
 * default), in alternating order, on their own server each (PostgreSQL, then MariaDB), and what is reported is the
 * median of the per-round ratios (with the quartiles) and of the per-round client CPU difference
 * (`process.cpuUsage()` around each turn): a burst hits both turns of a round alike.
 */
import { startMariadb, startPostgres } from "@distlock/test-servers";
import type { LockSubject, OpenSubject } from "../harness/index.js";
import { ADVISORY_FLOOR, DISTLOCK_MARIADB_SESSION, DISTLOCK_SESSION, GET_LOCK_FLOOR } from "./sql-lock-subjects.js";

const TTL_MS = 10_000;
const WARM_UP = 500;

interface Turns {
  readonly opsPerSecond: number[];
  readonly cpuMicrosPerOp: number[];
}

async function turn(open: OpenSubject, key: string, count: number, into: Turns): Promise<void> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) await (await open.acquire(key, TTL_MS))();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  into.opsPerSecond.push(count / seconds);
  into.cpuMicrosPerOp.push((cpu.user + cpu.system) / count);
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function compare(system: string, url: string, floor: LockSubject, subject: LockSubject, rounds: number, perTurn: number): Promise<string> {
  const subjects = [floor, subject];
  const opened: OpenSubject[] = [];
  const turns: Turns[] = subjects.map(() => ({ opsPerSecond: [], cpuMicrosPerOp: [] }));
  try {
    for (const each of subjects) {
      const open = await each.open(url);
      opened.push(open);
      for (let i = 0; i < WARM_UP; i++) await (await open.acquire(`bench:rounds:${each.id}`, TTL_MS))();
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) {
        await turn(opened[index] as OpenSubject, `bench:rounds:${subjects[index]?.id}`, perTurn, turns[index] as Turns);
      }
    }
  } finally {
    await Promise.allSettled(opened.map((open) => open.close()));
  }
  const [base, measured] = turns as [Turns, Turns];
  const ratios = measured.opsPerSecond.map((ops, round) => ops / (base.opsPerSecond[round] ?? Number.NaN));
  const cpuDiff = measured.cpuMicrosPerOp.map((cpu, round) => cpu - (base.cpuMicrosPerOp[round] ?? Number.NaN));
  return (
    `| ${system} | ${Math.round(quantile(base.opsPerSecond, 0.5))} | ${Math.round(quantile(measured.opsPerSecond, 0.5))} ` +
    `| ${quantile(ratios, 0.5).toFixed(2)}× (${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}) ` +
    `| ${Math.round(quantile(base.cpuMicrosPerOp, 0.5))} | +${quantile(cpuDiff, 0.5).toFixed(0)} |`
  );
}

const rounds = Number(process.argv[2] ?? 40);
const perTurn = Number(process.argv[3] ?? 250);
const lines = [
  `${rounds} rounds × ${perTurn} acquire+release per subject, order alternating; medians of the rounds (quartiles of the ratio)`,
  "",
  "| server | floor ops/s | session mode ops/s | session ÷ floor per round | floor client CPU µs/op | session − floor CPU µs/op |",
  "| --- | --- | --- | --- | --- | --- |",
];
const postgres = await startPostgres();
try {
  lines.push(await compare("PostgreSQL", postgres.url, ADVISORY_FLOOR, DISTLOCK_SESSION, rounds, perTurn));
} finally {
  await postgres.close();
}
const mariadb = await startMariadb();
try {
  lines.push(await compare("MariaDB", mariadb.userUrl, GET_LOCK_FLOOR, DISTLOCK_MARIADB_SESSION, rounds, perTurn));
} finally {
  await mariadb.close();
}
console.log(lines.join("\n"));
