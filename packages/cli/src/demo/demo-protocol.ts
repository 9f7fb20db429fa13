/** What a demo worker reports to the demo process (which answers each "enter"/"exit" before the worker goes on). */
export type DemoEvent =
  | { type: "elected"; worker: number; fencingToken: string }
  | { type: "dispatched"; worker: number; job: number; fencingToken: string }
  | { type: "deposed"; worker: number }
  | { type: "enter"; worker: number; fencingToken: string; id: number }
  | { type: "exit"; worker: number; id: number };
