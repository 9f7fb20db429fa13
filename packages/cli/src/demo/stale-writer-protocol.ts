/** What the demo's stalled writer reports: that it holds the price lock, then what became of its late write. */
export type StaleWriterEvent = { type: "holding"; fencingToken: string; read: number; write: number } | { type: "written" } | { type: "refused"; code: string };
