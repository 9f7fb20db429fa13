import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { INTEROP_DIR, startInteropJava, startInteropRig } from "../test/interop/interop-rig.js";
import { runProcess } from "../test/interop/run-process.js";
import { readWitness, witnessCounts } from "../test/interop/witness.js";

const ELECTORS = 2;
/** The session timeout, and so the shortest lease an elector can ask for. */
const SESSION_TIMEOUT_MS = 2_000;

const rig = await startInteropRig(["LatchLoop.java"]);
const { server } = rig;
afterAll(() => rig.close());

interface Campaign {
  /** The latch path the Java LeaderLatch runs on. */
  readonly latchPath: string;
  /** How many terms each side leads: the Java process, and each distlock elector process. */
  readonly terms: number;
  readonly javaHoldMs: number;
  readonly distlockHoldMs: number;
  /** How long the Java side waits to lead before it gives up (and fails the run). */
  readonly javaAwaitSeconds: number;
}

/**
 * A Java process with Curator's LeaderLatch on `latchPath` and distlock elector processes, `elect(provider, "leader")`
 * on a provider with chroot `/interop` and recipe `leader-latch` (latch path `/interop/latches/leader`), each leading
 * `terms` times and writing every term to one witness file.
 */
async function campaign(run: Campaign) {
  const classes = await rig.classes;
  const { witness, env } = rig.newRun(1 + ELECTORS);
  const curator = await startInteropJava(
    rig.java,
    classes,
    "LatchLoop",
    [server.connectString, run.latchPath, witness, String(run.terms), String(run.javaHoldMs), String(run.javaAwaitSeconds)],
    env,
  );
  const url = `${server.url}/interop?sessionTimeoutMs=${SESSION_TIMEOUT_MS}&recipe=leader-latch`;
  const electors = Array.from({ length: ELECTORS }, () =>
    runProcess(
      process.execPath,
      [join(INTEROP_DIR, "distlock-elect.mjs"), url, "leader", witness, String(run.terms), String(run.distlockHoldMs), String(SESSION_TIMEOUT_MS)],
      undefined,
      env,
    ),
  );
  await Promise.all([curator.finished, ...electors]);
  const terms = readWitness(witness);
  return { counts: witnessCounts(terms), distlock: terms.filter((term) => term.side === "distlock") };
}

describe("Curator LeaderLatch interop", () => {
  it("a Curator LeaderLatch and distlock electors on one latch path never lead at once, and both sides lead", async () => {
    // Terms long enough that the sides' processes, started one after the other, lead in turns for most of the run.
    const { counts, distlock } = await campaign({ latchPath: "/interop/latches/leader", terms: 30, javaHoldMs: 25, distlockHoldMs: 25, javaAwaitSeconds: 30 });
    console.log(`LeaderLatch interop: ${JSON.stringify(counts)}`);
    expect(counts).toMatchObject({ curator: 30, distlock: 30 * ELECTORS, overlaps: 0 });
    expect(counts.handovers).toBeGreaterThan(10);
    // Each term's token is its node's czxid: later terms, whoever led between them, have larger ones.
    for (let i = 1; i < distlock.length; i++) expect(distlock[i]?.token).toBeGreaterThan(distlock[i - 1]?.token ?? 0n);
  });

  it("a Curator LeaderLatch waiting behind a distlock leader that renews its lease leads once that leader steps down", async () => {
    // Everyone leads long enough for the others to line up behind, and each rejoins at the back: the latch's second term
    // waits behind the elector that leads after the other one, and so watches its node while it renews its lease (terms
    // longer than the lease). A renewal written to the node would spend that watch (LeaderLatch acts on a deletion only):
    // the latch would never lead again, and the elector behind it neither.
    const { counts } = await campaign({ latchPath: "/interop/latches/leader", terms: 2, javaHoldMs: 1_500, distlockHoldMs: 2_500, javaAwaitSeconds: 20 });
    console.log(`LeaderLatch interop, renewed terms: ${JSON.stringify(counts)}`);
    expect(counts).toMatchObject({ curator: 2, distlock: 2 * ELECTORS, overlaps: 0 });
  });

  it("the witness sees two leaders at once when the two sides elect on different paths (the check can fail)", async () => {
    const { counts } = await campaign({ latchPath: "/interop/latches/not-leader", terms: 20, javaHoldMs: 25, distlockHoldMs: 25, javaAwaitSeconds: 30 });
    console.log(`LeaderLatch interop, control on different paths: ${JSON.stringify(counts)}`);
    expect(counts.overlaps).toBeGreaterThan(0);
  });
});
