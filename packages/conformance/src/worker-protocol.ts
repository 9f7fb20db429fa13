import { MAX_READERS, type ReadWriteMode } from "@distlock/core";

/** Work a worker process does with a provider built from the URL it was given. */
export type WorkerTask =
  | { kind: "contend"; key: string; contenders: number; iterations: number; ttlMs: number; maxHoldMs: number }
  | { kind: "hold"; key: string; ttlMs: number; owner?: string }
  | { kind: "acquire-release"; key: string; ttlMs: number; owner?: string }
  | { kind: "permit-contend"; name: string; permits: number; contenders: number; iterations: number; ttlMs: number; maxHoldMs: number }
  | { kind: "permit-hold"; name: string; permits: number; count: number; ttlMs: number }
  | { kind: "permit-enter"; name: string; permits: number; count: number; ttlMs: number; contender: string }
  | { kind: "rw-hold"; name: string; mode: ReadWriteMode; ttlMs: number; contender: string }
  | { kind: "rw-contend"; name: string; contenders: number; iterations: number; ttlMs: number; maxHoldMs: number }
  | { kind: "multi-contend"; keys: string[]; contenders: number; iterations: number; ttlMs: number; waitMs: number; maxHoldMs: number }
  | { kind: "multi-hold"; keys: string[]; ttlMs: number };

/**
 * Tasks after which their worker is free for another, once it has said so ("done"; "released" for "rw-hold"): its
 * provider is closed and it holds nothing. The others end with the worker holding something, or exiting.
 */
export const TASKS_THAT_FREE_THE_WORKER: ReadonlySet<WorkerTask["kind"]> = new Set(["contend", "permit-contend", "rw-contend", "multi-contend", "rw-hold"]);

/** Messages a worker sends to the test process ("done": the task's provider is closed too). */
export type WorkerMessage =
  | { type: "ready" }
  | { type: "call"; id: number; method: "enter" | "exit"; contender: string; fencingToken: bigint | null; count?: number; key?: string }
  | { type: "held"; holdCount: number; fencingToken: bigint | null }
  | { type: "released" }
  | { type: "done"; acquisitions: number }
  | { type: "failed"; code: string | undefined; message: string };

/** Messages the test process sends to a worker; "release" ends an "rw-hold" task's hold. */
export type ParentMessage = { type: "task"; task: WorkerTask } | { type: "reply"; id: number } | { type: "release" };

/** Permits contender `index` takes: 1 or 2 (never more than exist), so all-or-nothing grants of several permits are exercised. */
export function contenderCount(index: number, permits: number): number {
  return Math.min(permits, 1 + (index % 2));
}

/** 2 or 3 of `keys`, picked at random and in random order: callers name their sets in any order they like. */
export function randomKeySet(keys: readonly string[]): string[] {
  const shuffled = [...keys].sort(() => Math.random() - 0.5);
  return shuffled.slice(0, 2 + Math.floor(Math.random() * 2));
}

/** The side read-write contender `index` takes on its `iteration`: mostly reads, every third a write. */
export function contenderMode(index: number, iteration: number): ReadWriteMode {
  return (index + iteration) % 3 === 0 ? "write" : "read";
}

/** What a hold of `mode` counts in a `Witness` of capacity `MAX_READERS`: a writer fills it, a reader takes 1. */
export function modeWeight(mode: ReadWriteMode): number {
  return mode === "write" ? MAX_READERS : 1;
}
