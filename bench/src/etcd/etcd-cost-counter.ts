import type { ServerCounter } from "../harness/index.js";

/** Cumulative etcd metrics by the name the tables print them under, and the Prometheus series each comes from (summed over labels). */
const SERIES = [
  { name: "requests", series: /^grpc_server_msg_received_total\{[^}]*\} (\S+)$/gm, scale: 1 },
  { name: "raft writes", series: /^etcd_server_proposals_committed_total (\S+)$/gm, scale: 1 },
  { name: "WAL fsyncs", series: /^etcd_disk_wal_fsync_duration_seconds_count (\S+)$/gm, scale: 1 },
  { name: "fsync µs", series: /^etcd_disk_wal_fsync_duration_seconds_sum (\S+)$/gm, scale: 1e6 },
  { name: "etcd CPU µs", series: /^process_cpu_seconds_total (\S+)$/gm, scale: 1e6 },
] as const;

/**
 * What an operation costs an etcd member, from its Prometheus `/metrics`: gRPC messages received (unary
 * calls and stream messages), committed raft entries, WAL fsyncs and the time they took, and the
 * member's CPU time (10 ms ticks).
 */
export class EtcdCostCounter implements ServerCounter {
  readonly readingCost = Object.freeze({ requests: 0 });
  readonly #endpoint: string;

  constructor(endpoint: string) {
    this.#endpoint = endpoint;
  }

  async read(): Promise<Readonly<Record<string, number>>> {
    const response = await fetch(`${this.#endpoint}/metrics`, { signal: AbortSignal.timeout(5_000) });
    const text = await response.text();
    const counts: Record<string, number> = {};
    for (const { name, series, scale } of SERIES) {
      let sum = 0;
      for (const match of text.matchAll(series)) sum += Number(match[1]);
      counts[name] = sum * scale;
    }
    return counts;
  }

  async close(): Promise<void> {}
}
