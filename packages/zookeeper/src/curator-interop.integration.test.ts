import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureServerBinaries, startZooKeeper } from "@distlock/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { runProcess } from "../test/interop/run-process.js";
import { handovers, maxConcurrent, overlaps, readWitness } from "../test/interop/witness.js";

const ROUNDS = 60;
const DISTLOCK_WORKERS = 2;
const HOLD_MS = 2;
const CURATOR_CLASSPATH = ["/usr/share/java/curator-recipes.jar", "/usr/share/java/slf4j-nop.jar"];
const interop = fileURLToPath(new URL("../test/interop/", import.meta.url));

const binaries = await ensureServerBinaries(["zookeeper", "curator"]);
const server = await startZooKeeper();
const work = mkdtempSync(join(tmpdir(), "distlock-curator-interop-"));
/** CuratorLoop.class, compiled once for every test of the file. */
const compiled = runProcess(binaries.get("javac") as string, ["-cp", CURATOR_CLASSPATH.join(":"), "-d", work, join(interop, "CuratorLoop.java")]).then(
  () => work,
);
// The tests await it and see a failure; this only keeps it from counting as unhandled before they do.
compiled.catch(() => undefined);
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

/**
 * Curator takes `/interop/locks/orders` and distlock worker processes take `key` (under chroot `/interop`), each `rounds`
 * times; with `permits`, one lease of Curator's semaphore `/interop/semaphores/pool` and one permit of distlock's `key`.
 */
async function contend(key: string, rounds: number, holdMs: number, permits = 0) {
  const java = binaries.get("java") as string;
  const classes = await compiled;
  const witness = join(mkdtempSync(join(work, "run-")), "witness.log");
  let curatorReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    curatorReady = resolve;
  });
  const curator = runProcess(
    java,
    [
      "-cp",
      [classes, ...CURATOR_CLASSPATH].join(":"),
      "CuratorLoop",
      server.connectString,
      permits > 0 ? "/interop/semaphores/pool" : "/interop/locks/orders",
      witness,
      String(rounds),
      String(holdMs),
      String(permits),
    ],
    (line) => line === "ready" && curatorReady(),
  );
  await Promise.race([ready, curator]);
  const url = `${server.url}/interop?sessionTimeoutMs=2000`;
  const workers = Array.from({ length: DISTLOCK_WORKERS }, () =>
    runProcess(process.execPath, [join(interop, "distlock-loop.mjs"), url, key, witness, String(rounds), String(holdMs), String(permits)]),
  );
  await Promise.all([curator, ...workers]);
  const holds = readWitness(witness);
  const distlock = holds.filter((hold) => hold.side === "distlock");
  const counts = {
    curator: holds.length - distlock.length,
    distlock: distlock.length,
    overlaps: overlaps(holds),
    handovers: handovers(holds),
    maxConcurrent: maxConcurrent(holds),
  };
  return { counts, distlock };
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
    const { counts } = await contend("pool", 40, 5, 2);
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
