import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { INTEROP_DIR as interop, startInteropJava, startInteropRig } from "../test/interop/interop-rig.js";
import { runProcess } from "../test/interop/run-process.js";
import { readWitness, witnessCounts } from "../test/interop/witness.js";

const ROUNDS = 60;
const DISTLOCK_WORKERS = 2;
const HOLD_MS = 2;

const rig = await startInteropRig(["CuratorLoop.java"]);
const { server } = rig;
afterAll(() => rig.close());

/**
 * Curator takes `/interop/locks/orders` and distlock worker processes take `key` (under chroot `/interop`), each `rounds`
 * times; with `permits`, one lease of Curator's semaphore `/interop/semaphores/pool` and one permit of distlock's `key`.
 */
async function contend(key: string, rounds: number, holdMs: number, permits = 0) {
  const classes = await rig.classes;
  const { witness, env } = rig.newRun(1 + DISTLOCK_WORKERS);
  const curator = await startInteropJava(
    rig.java,
    classes,
    "CuratorLoop",
    [server.connectString, permits > 0 ? "/interop/semaphores/pool" : "/interop/locks/orders", witness, String(rounds), String(holdMs), String(permits)],
    env,
  );
  const url = `${server.url}/interop?sessionTimeoutMs=2000`;
  const workers = Array.from({ length: DISTLOCK_WORKERS }, () =>
    runProcess(process.execPath, [join(interop, "distlock-loop.mjs"), url, key, witness, String(rounds), String(holdMs), String(permits)], undefined, env),
  );
  await Promise.all([curator.finished, ...workers]);
  const holds = readWitness(witness);
  return { counts: witnessCounts(holds), distlock: holds.filter((hold) => hold.side === "distlock") };
}

describe("Curator interop", () => {
  it("Curator's InterProcessMutex and distlock worker processes exclude each other on one lock path", async () => {
    const { counts, distlock } = await contend("orders", ROUNDS, HOLD_MS);
    console.log(`Curator interop: ${JSON.stringify(counts)}`);
    expect(counts).toMatchObject({ curator: ROUNDS, distlock: ROUNDS * DISTLOCK_WORKERS, overlaps: 0 });
    expect(counts.handovers).toBeGreaterThan(10);
    // Tokens are czxids: Curator's nodes draw from the same counter, so distlock's keep increasing across its grants.
    for (let i = 1; i < distlock.length; i++) expect(distlock[i]?.token).toBeGreaterThan(distlock[i - 1]?.token ?? 0n);
  });

  it("Curator's InterProcessSemaphoreV2 and distlock semaphores share one pool of permits", async () => {
    // Holds of 25 ms, as the control's: with 5 ms, a loaded run's acquires outlasted the holds so far that no two permits
    // were ever held at once (maxConcurrent 1), and sharing the pool went unseen.
    const { counts } = await contend("pool", 40, 25, 2);
    console.log(`Curator interop, semaphore of 2 permits: ${JSON.stringify(counts)}`);
    expect(counts).toMatchObject({ curator: 40, distlock: 80, maxConcurrent: 2 });
    expect(counts.handovers).toBeGreaterThan(10);
  });

  it("the witness sees overlaps when the two sides lock different paths (the check can fail)", async () => {
    // Holds long enough (30 × 25 ms a side) that the two sides surely run at the same time.
    const { counts } = await contend("not-orders", 30, 25);
    console.log(`Curator interop, control on different paths: ${JSON.stringify(counts)}`);
    expect(counts.overlaps).toBeGreaterThan(0);
  });
});
