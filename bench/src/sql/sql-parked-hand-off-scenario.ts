import pg from "pg";
import type { BenchRow, BenchScale, BenchTable, LockSubject, OpenSubject } from "../harness/index.js";
import { percentile, scaledCount } from "../harness/index.js";

const HAND_OFFS = 60;
const ROUNDS = 3;
const TTL_MS = 10_000;
const MIN_HOLD_MS = 50;
const MAX_HOLD_MS = 250;
/** The gap between the background client's queries: a few hundred small queries a second. */
const BACKGROUND_GAP_MS = 2;

interface Pair {
  readonly subject: LockSubject;
  readonly holder: OpenSubject;
  readonly waiter: OpenSubject;
  readonly handOffs: number[];
}

/**
 * Two clients: one holds the key for a random 50–250 ms while the other waits, then releases. Measures
 * release-to-acquire for a waiter that is already parked, which the looping contended scenario hardly
 * sees (there the releasing worker usually takes the key straight back). Subjects take turns in rounds.
 *
 * Run twice: on a server that serves nothing else, and on one that another client keeps busy with a few hundred
 * `select 1` a second. On this VM a process that slept 200 ms answers its first message 2–4 ms late (a bare
 * `select 1` after 200 ms of quiet: ~4 ms against 0.2 ms back to back), and a polling waiter's own polls keep the
 * processes awake, so on the idle server that wake-up is a cost of not polling rather than of the hand-off.
 */
export async function sqlParkedHandOffScenario(url: string, subjects: readonly LockSubject[], baseline: string, scale: BenchScale): Promise<BenchTable[]> {
  const idle = await parkedHandOffs(url, subjects, scale, false);
  const busy = await parkedHandOffs(url, subjects, scale, true);
  const count = scaledCount(HAND_OFFS, scale);
  const table = (id: string, condition: string, rows: BenchRow[]): BenchTable => ({
    id,
    title: `PostgreSQL hand-off to a parked waiter, ${condition}: ${count} times, holder keeps the key ${MIN_HOLD_MS}–${MAX_HOLD_MS} ms, then releases`,
    rows,
    baseline,
    ratioOf: "hand-off p50 ms",
    notes: [
      "- hand-off: from the start of the holder's release to the waiter's acquire resolving; subjects take turns in 3 rounds",
      `- background traffic: another pg.Client on the same server sends \`select 1\` every ${BACKGROUND_GAP_MS} ms while the subjects run, as a database that serves anything else does; on the idle server, the processes that slept through the hold wake late (2–4 ms on this VM after 200 ms asleep), and a polling waiter's polls keep them awake`,
    ],
  });
  return [table("postgres-parked-hand-off", "server with background traffic", busy), table("postgres-parked-hand-off-idle", "idle server", idle)];
}

async function parkedHandOffs(url: string, subjects: readonly LockSubject[], scale: BenchScale, background: boolean): Promise<BenchRow[]> {
  const perRound = Math.max(1, Math.ceil(scaledCount(HAND_OFFS, scale) / ROUNDS));
  const pairs: Pair[] = [];
  const traffic = background ? await startBackgroundTraffic(url) : undefined;
  try {
    for (const subject of subjects) pairs.push({ subject, holder: await subject.open(url), waiter: await subject.open(url), handOffs: [] });
    for (let round = 0; round < ROUNDS; round++) {
      for (const pair of round % 2 === 0 ? pairs : [...pairs].reverse()) await handOffs(pair, perRound, background);
    }
  } finally {
    await Promise.all(pairs.flatMap(({ holder, waiter }) => [holder.close(), waiter.close()]));
    await traffic?.stop();
  }
  return pairs.map(({ subject, handOffs }) => ({
    scenario: background ? "parked waiter, background traffic" : "parked waiter, idle server",
    subject: subject.name,
    metrics: { "hand-off p50 ms": percentile(handOffs, 50), "hand-off p99 ms": percentile(handOffs, 99) },
  }));
}

async function handOffs({ subject, holder, waiter, handOffs }: Pair, count: number, background: boolean): Promise<void> {
  const key = `bench:parked:${subject.id}:${background ? "busy" : "idle"}`;
  for (let i = 0; i < count; i++) {
    const release = await holder.acquire(key, TTL_MS);
    let releasedAt = 0;
    const waiting = waiter.acquire(key, TTL_MS).then((releaseWaiter) => {
      handOffs.push(performance.now() - releasedAt);
      return releaseWaiter();
    });
    await new Promise((resolve) => setTimeout(resolve, MIN_HOLD_MS + Math.random() * (MAX_HOLD_MS - MIN_HOLD_MS)));
    releasedAt = performance.now();
    await release();
    await waiting;
  }
}

/** A client that sends `select 1` every `BACKGROUND_GAP_MS` until stopped. */
async function startBackgroundTraffic(url: string): Promise<{ stop(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let running = true;
  const loop = (async () => {
    while (running) {
      await client.query("select 1");
      await new Promise((resolve) => setTimeout(resolve, BACKGROUND_GAP_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
    },
  };
}
