/** Options of `startNats` and `startNatsCluster`. */
export interface NatsOptions {
  /** How long `start()` waits for `/healthz` to say ok (JetStream ready; in a cluster, a meta leader known). @default 30000 */
  readonly startTimeoutMs?: number;
  /** Extra nats-server arguments for every server. @default [] */
  readonly args?: readonly string[];
  /**
   * Serve clients over TLS only, with a throwaway CA made by `openssl`, and require client certificates signed by it
   * (`NatsServer.clientTls`). Single servers only (`startNats`). @default false
   */
  readonly tls?: boolean;
}

export const DEFAULT_NATS_OPTIONS: Readonly<Required<NatsOptions>> = Object.freeze({
  startTimeoutMs: 30_000,
  args: Object.freeze([]),
  tls: false,
});
