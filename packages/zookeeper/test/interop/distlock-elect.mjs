// The distlock side of the leader-election interop test: campaigns with core's elect() on a @distlock/zookeeper
// provider (loaded as an application would, from the built packages) until it has led `terms` times. Each term leads
// for `holdMs`, appends "distlock <start> <end> <token>" to the witness file (process.hrtime: CLOCK_MONOTONIC, the clock
// Java's System.nanoTime reads) and resigns. Prints "done <terms>" at the end; exits non-zero if a term's signal aborted
// (leadership lost) before its end.
// Usage: node distlock-elect.mjs <url> <name> <witnessFile> <terms> <holdMs> <ttlMs>
import { appendFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { elect } from "@distlock/core";
import { ZooKeeperLockProvider } from "@distlock/zookeeper";
import { awaitEveryone } from "./barrier.mjs";

const [url, name, witness, terms, holdMs, ttlMs] = process.argv.slice(2);
const provider = new ZooKeeperLockProvider({ url });
let finish;
let fail;
const finished = new Promise((resolve, reject) => {
  finish = resolve;
  fail = reject;
});
let led = 0;
await awaitEveryone();
const election = elect(provider, name, {
  ttlMs: Number(ttlMs),
  retryDelayMs: 1,
  onElected: async (signal, { fencingToken }) => {
    const start = process.hrtime.bigint();
    await sleep(Number(holdMs));
    const end = process.hrtime.bigint();
    if (signal.aborted) fail(new Error(`term ${led} lost its leadership before its end: ${signal.reason}`));
    appendFileSync(witness, `distlock ${start} ${end} ${fencingToken}\n`);
    led += 1;
    if (led >= Number(terms)) finish();
    else void election.resign();
  },
  onError: (error) => console.error(error),
});
try {
  await finished;
  console.log(`done ${led}`);
} finally {
  await election.stop();
  await provider.close();
}
