import type { ServerCounter } from "../harness/index.js";

/** Counts the gRPC messages an etcd member received (unary requests and stream messages), from its Prometheus `/metrics`. */
export class EtcdRequestCounter implements ServerCounter {
  readonly readingCost = Object.freeze({ requests: 0 });
  readonly #endpoint: string;

  constructor(endpoint: string) {
    this.#endpoint = endpoint;
  }

  /** `requests`: every gRPC message the member received so far. */
  async read(): Promise<Readonly<Record<string, number>>> {
    const response = await fetch(`${this.#endpoint}/metrics`, { signal: AbortSignal.timeout(5_000) });
    const text = await response.text();
    let sum = 0;
    for (const match of text.matchAll(/^grpc_server_msg_received_total\{[^}]*\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/gm)) sum += Number(match[1]);
    return { requests: sum };
  }

  async close(): Promise<void> {}
}
