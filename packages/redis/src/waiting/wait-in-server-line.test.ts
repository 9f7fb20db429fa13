import type { DriverAcquireRequest, DriverGranted } from "@distlock/core/driver";
import { monotonicNow, newOwnerSecret } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import type { ChannelListener } from "./release-subscriber.js";
import { type LineRefusal, type ServerLineAccess, waitInServerLine } from "./wait-in-server-line.js";

const WAITER_ID = "waiter-1";
const request = (): DriverAcquireRequest => ({ key: "k", ownerSecret: newOwnerSecret(), holder: "h", ttlMs: 1_000 });
const granted = (fencingToken: bigint): DriverGranted => ({ acquired: true, fencingToken, holdCount: 1, ttlMs: 1_000 });
const refused = (tokensUpTo?: bigint): LineRefusal => ({ acquired: false, retryAfterMs: 60_000, ...(tokensUpTo === undefined ? {} : { tokensUpTo }) });

/** One attempt's answer, and what the channel says while it is in flight (`during`) or just after its reply (`after`). */
interface Turn {
  readonly answer: DriverGranted | LineRefusal;
  readonly during?: bigint;
  readonly after?: bigint;
}

/** A server line played by the test, one turn per attempt; a message "after" is read after the reply, as from another connection. */
function scriptedLine(turns: Turn[]) {
  let listener: ChannelListener | undefined;
  const attempts: number[] = [];
  const handOff = (token: bigint) => listener?.(`${WAITER_ID} ${token} 1000 0`);
  const access: ServerLineAccess = {
    attempt: async () => {
      attempts.push(monotonicNow());
      const turn = turns.shift();
      if (turn === undefined) throw new Error("no more turns scripted");
      if (turn.during !== undefined) handOff(turn.during);
      const after = turn.after;
      if (after !== undefined) setImmediate(() => handOff(after));
      return turn.answer;
    },
    leave: async () => undefined,
    listen: async (_key, heard) => {
      listener = heard;
      return () => {
        listener = undefined;
      };
    },
    newWaiterId: () => WAITER_ID,
    waiterLeaseMs: 30_000,
    claimHandOffs: false,
  };
  return { access, attempts };
}

const wait = (access: ServerLineAccess) => waitInServerLine(access, request(), new AbortController().signal);

describe("waitInServerLine", () => {
  it("takes a hand-off whose token is above the last refusal's bound, without another attempt, dated from that refused attempt", async () => {
    const line = scriptedLine([{ answer: refused(100n), after: 101n }]);
    const grant = await wait(line.access);
    expect(grant.fencingToken).toBe(101n);
    expect(line.attempts).toHaveLength(1);
    expect(grant.grantedAt).toBeLessThanOrEqual(line.attempts[0] as number);
  });

  it("does not take a hand-off older than the refusal it reached the waiter after (a paused process reads both at once): the next attempt decides", async () => {
    // Handed to this waiter with token 90, whose lease ran out while the waiter was paused; the attempt it then sent
    // found the lock another's (token 100), and only after that reply did the old message come in.
    const line = scriptedLine([{ answer: refused(100n), after: 90n }, { answer: granted(105n) }]);
    const grant = await wait(line.access);
    expect(grant.fencingToken).toBe(105n);
    expect(line.attempts).toHaveLength(2);
    expect(grant.grantedAt).toBeGreaterThan(line.attempts[0] as number);
  });

  it("judges a message heard while the attempt was in flight by the same bound", async () => {
    const fresh = scriptedLine([{ answer: refused(100n), during: 101n }]);
    expect((await wait(fresh.access)).fencingToken).toBe(101n);
    expect(fresh.attempts).toHaveLength(1);
    const stale = scriptedLine([{ answer: refused(100n), during: 99n }, { answer: granted(120n) }]);
    expect((await wait(stale.access)).fencingToken).toBe(120n);
    expect(stale.attempts).toHaveLength(2);
  });

  it("without a bound from the refusal, claims a hand-off through another attempt rather than dating it from the refused one", async () => {
    const line = scriptedLine([{ answer: refused(), after: 101n }, { answer: granted(101n) }]);
    const grant = await wait(line.access);
    expect(line.attempts).toHaveLength(2);
    expect(grant.grantedAt).toBeGreaterThan(line.attempts[0] as number);
  });
});
