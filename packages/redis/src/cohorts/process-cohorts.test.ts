import type { DriverAcquireRequest, DriverGranted, DriverWait } from "@distlock/core/driver";
import { monotonicNow, newOwnerSecret } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { TOKEN_BLOCK } from "../scripts/lua-functions.js";
import { CohortLines } from "../waiting/cohort-lines.js";
import type { ProcessCohort } from "./process-cohort.js";
import { ProcessCohorts } from "./process-cohorts.js";

const KEY = "k";
const request = (ttlMs = 30_000, freshOwner = true): DriverAcquireRequest => ({ key: KEY, ownerSecret: newOwnerSecret(), holder: "h", ttlMs, freshOwner });
const grant = (fencingToken: bigint, ttlMs = 30_000): DriverGranted => ({ acquired: true, fencingToken, holdCount: 1, ttlMs });

function cohorts(maxPasses: number) {
  const givenBack: ProcessCohort[] = [];
  return { cohorts: new ProcessCohorts(maxPasses, new CohortLines(maxPasses), (cohort) => givenBack.push(cohort)), givenBack };
}

describe("ProcessCohorts", () => {
  it("passes the hold to its line with the next tokens, at most maxPasses times, then gives it back with the last token passed", async () => {
    const { cohorts: here } = cohorts(2);
    const first = request();
    here.granted(first, grant(100n), monotonicNow(), 0, true);
    const waiters = [request(), request(), request()];
    const waits = waiters.map((r) => here.wait(r, { signal: new AbortController().signal }));
    expect(waits[2]).toBeUndefined();
    expect(here.release(KEY, first.ownerSecret)).toBe("passed");
    expect((await waits[0])?.fencingToken).toBe(101n);
    expect(here.release(KEY, (waiters[0] as DriverAcquireRequest).ownerSecret)).toBe("passed");
    expect((await waits[1])?.fencingToken).toBe(102n);
    const back = here.release(KEY, (waiters[1] as DriverAcquireRequest).ownerSecret) as ProcessCohort;
    expect(back.serverSecret).toBe(first.ownerSecret);
    expect(back.lastToken).toBe(102n);
  });

  it("passes nothing without a server call when the grant reserved no token block (a free key taken with an empty line)", () => {
    const { cohorts: here } = cohorts(4);
    const first = request();
    here.granted(first, grant(3n), monotonicNow(), 0, false);
    expect(here.wait(request(), { signal: new AbortController().signal })).toBeUndefined();
    expect(here.release(KEY, first.ownerSecret)).toBeUndefined();
  });

  it("never passes beyond the grant's token block", async () => {
    const { cohorts: here } = cohorts(TOKEN_BLOCK + 10);
    let holder = request();
    here.granted(holder, grant(1n), monotonicNow(), 0, true);
    for (let i = 0; i < TOKEN_BLOCK; i++) {
      const next = request();
      const waiting = here.wait(next, { signal: new AbortController().signal });
      expect(here.release(KEY, holder.ownerSecret)).toBe("passed");
      expect((await waiting)?.fencingToken).toBe(BigInt(i + 2));
      holder = next;
    }
    expect(here.wait(request(), { signal: new AbortController().signal })).toBeUndefined();
    expect((here.release(KEY, holder.ownerSecret) as ProcessCohort).lastToken).toBe(1n + BigInt(TOKEN_BLOCK));
  });

  it("lingers for the releasing worker only when others were queued at the grant, and gives the hold back on the next turn if nobody came", async () => {
    const alone = cohorts(4);
    const first = request();
    alone.cohorts.granted(first, grant(7n), monotonicNow(), 0, true);
    expect(alone.cohorts.release(KEY, first.ownerSecret)).not.toBe("passed");

    const queued = cohorts(4);
    const holder = request();
    queued.cohorts.granted(holder, grant(7n), monotonicNow(), 2, true);
    expect(queued.cohorts.release(KEY, holder.ownerSecret)).toBe("passed");
    expect(queued.cohorts.take(request())?.fencingToken).toBe(8n);
    await new Promise((resolve) => setImmediate(resolve));
    expect(queued.givenBack).toEqual([]);

    const idle = cohorts(4);
    const last = request();
    idle.cohorts.granted(last, grant(7n), monotonicNow(), 2, true);
    expect(idle.cohorts.release(KEY, last.ownerSecret)).toBe("passed");
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle.givenBack.map((c) => c.lastToken)).toEqual([7n]);
    expect(idle.cohorts.take(request())).toBeUndefined();
  });

  it("takes in only fresh owners asking the cohort's ttl, and nobody once the lease's deadline has passed", () => {
    const { cohorts: here } = cohorts(4);
    const first = request(30_000);
    here.granted(first, grant(5n), monotonicNow(), 0, true);
    const wait = { signal: new AbortController().signal };
    expect(here.wait(request(2_000), wait)).toBeUndefined();
    expect(here.wait(request(30_000, false), wait)).toBeUndefined();
    const expired = cohorts(4);
    const old = request(100);
    expired.cohorts.granted(old, grant(5n, 100), monotonicNow() - 1_000, 0, true);
    expect(expired.cohorts.wait(request(100), wait)).toBeUndefined();
    expect(expired.cohorts.release(KEY, old.ownerSecret)).not.toBe("passed");
  });

  it("an aborted wait leaves the line, and the next release passes to the one behind it", async () => {
    const { cohorts: here } = cohorts(4);
    const first = request();
    here.granted(first, grant(9n), monotonicNow(), 0, true);
    const aborting = new AbortController();
    const gone = here.wait(request(), { signal: aborting.signal });
    const next = here.wait(request(), { signal: new AbortController().signal });
    aborting.abort(new Error("gave up"));
    await expect(gone).rejects.toThrow("gave up");
    expect(here.release(KEY, first.ownerSecret)).toBe("passed");
    expect((await next)?.fencingToken).toBe(10n);
  });

  it("waits on core's wait without making its signal: an abort through the wait's own onAbort leaves the line", async () => {
    const { cohorts: here } = cohorts(4);
    const first = request();
    here.granted(first, grant(9n), monotonicNow(), 0, true);
    // A wait as core makes it (its signal made on first read), with the signal's read failing the test.
    let reason: unknown;
    const listeners = new Set<(reason: unknown) => void>();
    const withoutSignal: DriverWait = {
      get signal(): AbortSignal {
        throw new Error("the signal was made");
      },
      get aborted() {
        return reason !== undefined;
      },
      get reason() {
        return reason;
      },
      onAbort: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const gone = here.wait(request(), withoutSignal);
    const next = here.wait(request(), { signal: new AbortController().signal });
    reason = new Error("timed out");
    for (const listener of listeners) listener(reason);
    await expect(gone).rejects.toThrow("timed out");
    expect(here.release(KEY, first.ownerSecret)).toBe("passed");
    expect((await next)?.fencingToken).toBe(10n);
  });

  it("translates the holder's renewal to the server's secret, and a refused renewal sends the line to the server", async () => {
    const { cohorts: here } = cohorts(4);
    const first = request();
    here.granted(first, grant(9n), monotonicNow(), 0, true);
    const second = request();
    const waiting = here.wait(second, { signal: new AbortController().signal });
    here.release(KEY, first.ownerSecret);
    await waiting;
    expect(here.serverSecret(KEY, second.ownerSecret)).toBe(first.ownerSecret);
    const third = here.wait(request(), { signal: new AbortController().signal });
    here.renewed(KEY, first.ownerSecret, monotonicNow(), 30_000, false);
    expect(await third).toBeUndefined();
    expect(here.serverSecret(KEY, second.ownerSecret)).toBe(second.ownerSecret);
  });
});
