import type { DriverPermitRequest } from "@distlock/core/driver";
import { newOwnerSecret } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { CohortLines } from "../waiting/cohort-lines.js";
import type { CohortGrant } from "./permit-cohort.js";
import { PermitCohorts } from "./permit-cohorts.js";

const NAME = "pool";
const TTL = 30_000;
const request = (ttlMs = TTL, count = 1): DriverPermitRequest => ({ key: NAME, ownerSecret: newOwnerSecret(), holder: "h", ttlMs, permits: 4, count });
const waiting = () => ({ signal: new AbortController().signal });

function cohorts(maxPasses = 4, waiterLeaseMs = 30_000) {
  const serverLines = new CohortLines(maxPasses);
  return { here: new PermitCohorts(maxPasses, waiterLeaseMs, serverLines), serverLines };
}

/** A grant from the server's line to a fresh secret that left `queued` waiters there. */
function grant(here: PermitCohorts, queued = 1, ttlMs = TTL): CohortGrant | undefined {
  const secret = newOwnerSecret();
  here.granted(NAME, secret, ttlMs, queued);
  return here.grantOf(NAME, secret);
}

describe("PermitCohorts", () => {
  it("starts a cohort only with a grant that left others waiting, and lets only one-permit acquires of its ttl wait in it", () => {
    const { here } = cohorts();
    expect(grant(here, 0)).toBeUndefined();
    expect(here.wait(request(), waiting())).toBeUndefined();
    expect(grant(here, 2)).toBeDefined();
    expect(here.wait(request(TTL, 2), waiting())).toBeUndefined();
    expect(here.wait(request(5_000), waiting())).toBeUndefined();
    expect(here.wait(request(), waiting())).toBeInstanceOf(Promise);
  });

  it("passes to this process's waiter in the server's line first, then to the local line; at maxPasses in a row with others queued it gives the grant back", () => {
    const { here, serverLines } = cohorts(2);
    const held = grant(here) as CohortGrant;
    const inServerLine = { waiterId: "w.1", ownerSecret: newOwnerSecret(), ttlMs: TTL, freshOwner: true, take: () => true };
    serverLines.join(NAME, inServerLine);
    void here.wait(request(), waiting());
    const first = here.nextTarget(held);
    expect(first?.waiterId).toBe("w.1");
    here.passed(held, first as NonNullable<typeof first>, 1, 0);
    expect(held.secret).toBe(inServerLine.ownerSecret);
    const second = here.nextTarget(held);
    expect(second?.waiterId).toBe("");
    here.passed(held, second as NonNullable<typeof second>, 1, 0);
    expect(held.passes).toBe(2);
    expect(here.nextTarget(held)).toBeUndefined();
  });

  it("counts passes in a row only while others wait on the server: a pass with none queued starts the count again", () => {
    const { here } = cohorts(2);
    const held = grant(here) as CohortGrant;
    for (const queued of [1, 0, 1]) {
      void here.wait(request(), waiting());
      const target = here.nextTarget(held);
      here.passed(held, target as NonNullable<typeof target>, queued, 0);
    }
    expect(held.passes).toBe(1);
  });

  it("sends the local line to the server when the last grant ends, and keeps it while another grant of its ttl may still pass", async () => {
    const { here } = cohorts();
    const first = grant(here) as CohortGrant;
    const second = grant(here) as CohortGrant;
    const waiter = here.wait(request(), waiting());
    here.end(first);
    expect(here.has(NAME)).toBe(true);
    here.end(second);
    expect(await waiter).toBeUndefined();
    expect(here.has(NAME)).toBe(false);
  });

  it("a larger waiter first on the server: the grant ends, every local waiter goes to the server, and new acquires no longer wait here", async () => {
    const { here } = cohorts();
    const first = grant(here) as CohortGrant;
    grant(here);
    const waiter = here.wait(request(), waiting());
    here.yieldTo(first);
    expect(await waiter).toBeUndefined();
    expect(here.wait(request(), waiting())).toBeUndefined();
  });

  it("an aborted local wait rejects with its reason and leaves the line; one taken out for a pass gets the pass's answer", async () => {
    const { here } = cohorts();
    const held = grant(here) as CohortGrant;
    const aborting = new AbortController();
    const gone = here.wait(request(), { signal: aborting.signal });
    aborting.abort(new Error("gave up"));
    await expect(gone).rejects.toThrow("gave up");
    const passing = new AbortController();
    const next = here.wait(request(), { signal: passing.signal });
    const target = here.nextTarget(held);
    passing.abort(new Error("too late"));
    expect(target?.receive({ acquired: true, fencingToken: 7n, holdCount: 1, ttlMs: TTL }, 0)).toBe(false);
    await expect(next).rejects.toThrow("too late");
  });

  it("a local wait ends after a server-line waiter's refresh period (min(waiterLeaseMs / 3, ttl / 4)), to queue on the server", async () => {
    const { here } = cohorts(4, 30);
    grant(here);
    expect(await here.wait(request(), waiting())).toBeUndefined();
    expect(here.has(NAME)).toBe(true);
  });
});
