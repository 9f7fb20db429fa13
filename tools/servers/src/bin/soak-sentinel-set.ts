#!/usr/bin/env node
/**
 * Starts and stops the Sentinel set of the fault matrix's Sentinel rows (3 Sentinels, down-after 1 s, failover-timeout
 * 5 s) again and again, each time failing it over a few times the way the `master-failover` fault does (the replica's
 * link cut through a proxy for a second, the master SIGKILLed, the Sentinels' promotion awaited, the old master started
 * again), and counts the sets that failed. Evidence for a set-up that must start reliably on a loaded machine:
 *
 *   node tools/servers/dist/bin/soak-sentinel-set.js [sets, default 20] [failovers per set, default 3]
 *
 * One JSON line per set (`switches`: the failovers the first Sentinel saw; more than asked for are its own); the last
 * line sums up. Exits 1 if any set failed, printing the Sentinels' role changes.
 */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { startTcpProxy } from "../net/tcp-proxy.js";
import { type RedisSentinelSet, startRedisSentinelSet } from "../redis/redis-sentinel-set.js";

const [sets = 20, failovers = 3] = process.argv.slice(2).map(Number);
const OPTIONS = { sentinels: 3, downAfterMs: 1_000, failoverTimeoutMs: 5_000 } as const;

/** One failover as the fault's injector runs it, without workers. */
async function failOverOnce(set: RedisSentinelSet): Promise<void> {
  const { master, replica } = await set.settled();
  const link = await startTcpProxy(master.port);
  try {
    await set.replicate(replica, link.port);
    link.blackhole();
    await sleep(1_000);
  } finally {
    await link.close();
  }
  await master.kill();
  await set.promoted(replica);
  await master.start();
  await set.settled();
}

let failed = 0;
const began = performance.now();
for (let n = 0; n < sets; n++) {
  const startedAt = performance.now();
  let set: RedisSentinelSet | undefined;
  let step = "set-up";
  try {
    set = await startRedisSentinelSet(OPTIONS);
    const setUpMs = Math.round(performance.now() - startedAt);
    for (let i = 0; i < failovers; i++) {
      step = `failover ${i + 1}`;
      await failOverOnce(set);
      await sleep(1_500);
    }
    // More switches than failovers: the Sentinels also failed over on their own (and the set settled anyway).
    const switches = readFileSync(set.sentinel.logFile, "utf8").match(/\+switch-master/g)?.length ?? 0;
    console.log(JSON.stringify({ set: n, ok: true, setUpMs, switches, ms: Math.round(performance.now() - startedAt) }));
  } catch (error) {
    failed++;
    console.log(JSON.stringify({ set: n, ok: false, step, error: (error as Error).message }));
    for (const sentinel of set?.sentinels ?? []) {
      const changes = readFileSync(sentinel.logFile, "utf8")
        .split("\n")
        .filter((line) => /[+-](sdown|odown) master|switch-master|tilt/.test(line));
      console.log(`${sentinel.name}:\n${changes.join("\n")}`);
    }
  } finally {
    await set?.close().catch(() => undefined);
  }
}
console.log(JSON.stringify({ failed, sets, failovers, minutes: Number(((performance.now() - began) / 60_000).toFixed(1)) }));
process.exit(failed > 0 ? 1 : 0);
