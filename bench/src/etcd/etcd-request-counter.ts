/** Counts the gRPC messages an etcd member received (unary requests and stream messages), from its Prometheus `/metrics`. */
export class EtcdRequestCounter {
  readonly #endpoint: string;

  constructor(endpoint: string) {
    this.#endpoint = endpoint;
  }

  async total(): Promise<number> {
    const response = await fetch(`${this.#endpoint}/metrics`, { signal: AbortSignal.timeout(5_000) });
    const text = await response.text();
    let sum = 0;
    for (const match of text.matchAll(/^grpc_server_msg_received_total\{[^}]*\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/gm)) sum += Number(match[1]);
    return sum;
  }
}
