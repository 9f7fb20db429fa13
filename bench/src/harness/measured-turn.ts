import type { LockSubject } from "./lock-subject.js";
import { countsPer, type ServerCounter } from "./server-counter.js";
import { clientCpuPerOp, type TurnSample } from "./turn-summary.js";

/** What one turn's loop recorded: each acquire+release's latency, and each acquire's alone where it timed them (ms). */
export interface TurnLatencies {
  readonly ops: readonly number[];
  readonly acquires: readonly number[];
}

/**
 * One subject's turn: `loop` run between two readings of the server's counts and of this process's CPU time, each
 * reported per acquire+release the loop made.
 */
export async function measuredTurn<S extends LockSubject>(
  counter: ServerCounter<S> | undefined,
  subject: S,
  loop: () => Promise<TurnLatencies>,
): Promise<TurnSample> {
  const before = await counter?.read(subject);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const { ops, acquires } = await loop();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const after = await counter?.read(subject);
  const counts = counter !== undefined && before !== undefined && after !== undefined ? countsPer(counter.readingCost, before, after, ops.length, "op") : {};
  return { ops, acquires, seconds, perOp: { ...clientCpuPerOp(cpu, ops.length), ...counts } };
}
