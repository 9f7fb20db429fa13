import { type BenchRow, type BenchScale, type BenchTable, type Release, scaledCount, scaledMs } from "../harness/index.js";
import type { RedisLockSubject } from "./lock-subjects.js";
import { ServerCounters } from "./server-counters.js";

const LOCKS = 10_000;
const TTL_MS = 3_000;
const CONCURRENCY = 200;
const WINDOW_MS = 6_000;

/** 10,000 locks (at full scale) held with auto-renew (renewing at ttl/3): what keeping them costs the server and the process. */
export async function heldLocksScenario(url: string, subjects: readonly RedisLockSubject[], baseline: string, scale: BenchScale): Promise<BenchTable> {
  const locks = scaledCount(LOCKS, scale);
  const windowMs = scaledMs(WINDOW_MS, scale);
  const counters = new ServerCounters(url);
  const rows: BenchRow[] = [];
  for (const subject of subjects) {
    const heapBefore = heapAfterGc();
    const rssBefore = process.memoryUsage().rss;
    const open = await subject.open(url);
    const releases: Release[] = [];
    for (let next = 0; next < locks; next += CONCURRENCY) {
      const batch = Array.from({ length: Math.min(CONCURRENCY, locks - next) }, (_, i) => open.acquire(`bench:held:${subject.id}:${next + i}`, TTL_MS));
      releases.push(...(await Promise.all(batch)));
    }
    const heapHeld = heapAfterGc() - heapBefore;
    const before = await counters.read(subject);
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = await counters.read(subject);
    const commands = (after["server cmds"] ?? 0) - (before["server cmds"] ?? 0) - counters.readingCost["server cmds"];
    const requests = (after.requests ?? 0) - (before.requests ?? 0) - counters.readingCost.requests;
    const rss = process.memoryUsage().rss - rssBefore;
    for (let next = 0; next < releases.length; next += CONCURRENCY) await Promise.all(releases.slice(next, next + CONCURRENCY).map((release) => release()));
    await open.close();
    rows.push({
      scenario: `${locks.toLocaleString("en-US")} held, ttl ${TTL_MS} ms`,
      subject: subject.name,
      metrics: {
        "requests/s renewing": requests / (windowMs / 1000),
        "server cmds/s renewing": commands / (windowMs / 1000),
        "RSS MB (delta)": rss / 2 ** 20,
        "heap KB per held lock (after GC)": heapHeld / 1024 / locks,
      },
    });
  }
  await counters.close();
  return {
    id: "redis-held-locks",
    title: `${locks.toLocaleString("en-US")} locks held with auto-renew for ${windowMs / 1000} s`,
    rows,
    baseline,
    ratioOf: "server cmds/s renewing",
    notes: [
      "- requests/s counts the commands the subject's clients sent (INFO commandstats); server cmds/s counts every command the server ran, script-internal calls included (INFO stats).",
      "- heap KB per held lock: `heapUsed` after a forced GC with the locks held, less the same before the subject opened, over the locks (`--expose-gc`, as `npm run bench` runs; NaN without it). RSS deltas are noise at this size: the allocator keeps what it had.",
    ],
  };
}

/** `heapUsed` right after a full GC; NaN when the process was started without `--expose-gc`. */
function heapAfterGc(): number {
  if (global.gc === undefined) return Number.NaN;
  global.gc();
  return process.memoryUsage().heapUsed;
}
