/** Options of `startZooKeeper` and `startZooKeeperEnsemble`. */
export interface ZooKeeperOptions {
  /** The server's tick in ms: sessions expire on tick boundaries, and the shortest session is 2 ticks. @default 100 */
  readonly tickTimeMs?: number;
  /** The longest session timeout a client may negotiate, in ms. @default 60000 */
  readonly maxSessionTimeoutMs?: number;
  /** How long `start()` waits for `srvr` to report a serving mode. @default 60000 */
  readonly startTimeoutMs?: number;
  /** Extra `zoo.cfg` lines for every server. @default [] */
  readonly config?: readonly string[];
}

export const DEFAULT_ZOOKEEPER_OPTIONS: Readonly<Required<ZooKeeperOptions>> = Object.freeze({
  tickTimeMs: 100,
  maxSessionTimeoutMs: 60_000,
  startTimeoutMs: 60_000,
  config: Object.freeze([]),
});
