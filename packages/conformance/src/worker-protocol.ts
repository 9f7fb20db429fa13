/** Work a worker process does with a provider built from the URL it was given. */
export type WorkerTask =
  | { kind: "contend"; key: string; contenders: number; iterations: number; ttlMs: number; maxHoldMs: number }
  | { kind: "hold"; key: string; ttlMs: number; owner?: string }
  | { kind: "acquire-release"; key: string; ttlMs: number; owner?: string };

/** Messages a worker sends to the test process. */
export type WorkerMessage =
  | { type: "ready" }
  | { type: "call"; id: number; method: "enter" | "exit"; contender: string; fencingToken: bigint | null }
  | { type: "held"; holdCount: number; fencingToken: bigint | null }
  | { type: "released" }
  | { type: "done"; acquisitions: number }
  | { type: "failed"; code: string | undefined; message: string };

/** Messages the test process sends to a worker. */
export type ParentMessage = { type: "task"; task: WorkerTask } | { type: "reply"; id: number };
