import type { BenchRow, BenchTable, Release } from "../harness/index.js";
import type { RedisLockSubject } from "./lock-subjects.js";
import { ServerCounters } from "./server-counters.js";

const LOCKS = 10_000;
const TTL_MS = 3_000;
const CONCURRENCY = 200;
const WINDOW_MS = 6_000;

/** 10,000 locks held with auto-renew (renewing at ttl/3): what keeping them costs the server and the process. */
export async function heldLocksScenario(url: string, subjects: readonly RedisLockSubject[], baseline: string): Promise<BenchTable> {
  const counters = new ServerCounters(url);
  const rows: BenchRow[] = [];
  for (const subject of subjects) {
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const open = await subject.open(url);
    const releases: Release[] = [];
    for (let next = 0; next < LOCKS; next += CONCURRENCY) {
      const batch = Array.from({ length: Math.min(CONCURRENCY, LOCKS - next) }, (_, i) => open.acquire(`bench:held:${subject.id}:${next + i}`, TTL_MS));
      releases.push(...(await Promise.all(batch)));
    }
    const before = await counters.read(subject);
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const after = await counters.read(subject);
    const commands = (after["server cmds"] ?? 0) - (before["server cmds"] ?? 0) - counters.readingCost["server cmds"];
    const requests = (after.requests ?? 0) - (before.requests ?? 0) - counters.readingCost.requests;
    const rss = process.memoryUsage().rss - rssBefore;
    for (let next = 0; next < releases.length; next += CONCURRENCY) await Promise.all(releases.slice(next, next + CONCURRENCY).map((release) => release()));
    await open.close();
    rows.push({
      scenario: `${LOCKS.toLocaleString("en-US")} held, ttl ${TTL_MS} ms`,
      subject: subject.name,
      metrics: {
        "requests/s renewing": requests / (WINDOW_MS / 1000),
        "server cmds/s renewing": commands / (WINDOW_MS / 1000),
        "RSS MB (delta)": rss / 2 ** 20,
      },
    });
  }
  await counters.close();
  return {
    id: "redis-held-locks",
    title: `${LOCKS.toLocaleString("en-US")} locks held with auto-renew for ${WINDOW_MS / 1000} s`,
    rows,
    baseline,
    ratioOf: "server cmds/s renewing",
    notes: [
      "- requests/s counts the commands the subject's clients sent (INFO commandstats); server cmds/s counts every command the server ran, script-internal calls included (INFO stats).",
    ],
  };
}
