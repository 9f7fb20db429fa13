/** Options of `startEtcd` and `startEtcdCluster`. */
export interface EtcdOptions {
  /** Raft heartbeat interval in ms. @default 50 */
  readonly heartbeatIntervalMs?: number;
  /** Raft election timeout in ms; a dead leader is replaced after about this long. @default 500 */
  readonly electionTimeoutMs?: number;
  /** How long `start()` waits for `/health` to say true. @default 30000 */
  readonly startTimeoutMs?: number;
  /** Extra etcd arguments for every member. @default [] */
  readonly args?: readonly string[];
  /**
   * Serve clients over TLS only, with a throwaway CA made by `openssl`, and require client certificates signed by it
   * (`EtcdServer.clientTls`). Single members only (`startEtcd`). @default false
   */
  readonly tls?: boolean;
}

export const DEFAULT_ETCD_OPTIONS: Readonly<Required<EtcdOptions>> = Object.freeze({
  heartbeatIntervalMs: 50,
  electionTimeoutMs: 500,
  startTimeoutMs: 30_000,
  args: Object.freeze([]),
  tls: false,
});
