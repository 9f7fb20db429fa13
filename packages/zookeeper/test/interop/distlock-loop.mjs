// The distlock side of the interop test: takes `key` `rounds` times through @distlock/zookeeper (loaded as an
// application would, from its built package) and while holding it appends "distlock <start> <end> <token>" to the
// witness file, both times from process.hrtime (CLOCK_MONOTONIC, the clock Java's System.nanoTime reads).
// With `permits` > 0 it takes one permit of semaphore `key` (of that many permits) instead.
// A first hold, before the barrier, warms up and is not witnessed.
// Usage: node distlock-loop.mjs <url> <key> <witnessFile> <rounds> <holdMs> [permits]
import { appendFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { ZooKeeperLockProvider } from "@distlock/zookeeper";
import { awaitEveryone } from "./barrier.mjs";

const [url, key, witness, rounds, holdMs, permits = "0"] = process.argv.slice(2);
const locks = new ZooKeeperLockProvider({ url });
try {
  // Round -1 warms up before the barrier, as the Curator side does, and is not witnessed.
  for (let round = -1; round < Number(rounds); round++) {
    if (round === 0) await awaitEveryone();
    const lock =
      Number(permits) > 0 ? await locks.semaphore(key, { permits: Number(permits) }).acquire({ waitMs: 60_000 }) : await locks.acquire(key, { waitMs: 60_000 });
    try {
      const start = process.hrtime.bigint();
      await sleep(Number(holdMs));
      const end = process.hrtime.bigint();
      if (round >= 0) appendFileSync(witness, `distlock ${start} ${end} ${lock.fencingToken}\n`);
    } finally {
      await lock.release();
    }
  }
  console.log(`done ${rounds}`);
} finally {
  await locks.close();
}
