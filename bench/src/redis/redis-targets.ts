import type { BenchTarget } from "../harness/index.js";
import { DISTLOCK, NODE_REDLOCK, RAW_FLOOR, REDIS_SEMAPHORE } from "./lock-subjects.js";

const PEERS = [NODE_REDLOCK.name, REDIS_SEMAPHORE.name];
const ours = (table: string, metric: string) => ({ table, subject: DISTLOCK.name, metric });

/** Issue 3's targets for the Redis backend. */
export const REDIS_TARGETS: readonly BenchTarget[] = [
  { claim: "uncontended ops/s ≥ 0.9× the raw ioredis floor", value: ours("redis-uncontended", "ops/s"), versus: { subjects: [RAW_FLOOR.name] }, min: 0.9 },
  { claim: "uncontended ops/s no slower than either peer", value: ours("redis-uncontended", "ops/s"), versus: { subjects: PEERS }, min: 1 },
  { claim: "W=16: hand-off p50 ≤ ½ of the better peer", value: ours("redis-contended-w16", "hand-off p50 ms"), versus: { subjects: PEERS }, max: 0.5 },
  { claim: "W=4: hand-off p50 ≤ ⅓ of the better peer", value: ours("redis-contended-w4", "hand-off p50 ms"), versus: { subjects: PEERS }, max: 1 / 3 },
  // Commands the clients sent (INFO commandstats): what crosses the network and queues on the server. The
  // "server cmds/acq" column also counts the calls a Lua script makes inside one command, and is reported beside it.
  ...[4, 16, 64].map((w) => ({ claim: `W=${w}: commands sent per acquisition ≤ 6`, value: ours(`redis-contended-w${w}`, "requests/acq"), max: 6 })),
  {
    claim: "commands sent per acquisition flat (±25%) from W=4 to W=64",
    value: ours("redis-contended-w64", "requests/acq"),
    versus: { table: "redis-contended-w4" },
    min: 0.75,
    max: 1.25,
  },
  ...[4, 16, 64].map((w) => ({ claim: `W=${w}: fairness min/max ≥ 0.5`, value: ours(`redis-contended-w${w}`, "fairness min/max"), min: 0.5 })),
];
