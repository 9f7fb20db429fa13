import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { LeaseSweep } from "./lease-sweep.js";

interface Lease {
  readonly name: string;
  expiresAt: number;
}

/** A sweep over `leases` that records what expired, when, and resolves `done` once `last` has. */
function sweepOf(leases: Set<Lease>, last: string) {
  const expired: { name: string; lateByMs: number }[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const sweep = new LeaseSweep(
    () => leases,
    (lease: Lease) => {
      leases.delete(lease);
      expired.push({ name: lease.name, lateByMs: monotonicNow() - lease.expiresAt });
      if (lease.name === last) finish();
    },
  );
  return { sweep, expired, done };
}

describe("LeaseSweep", () => {
  it("hands each lease over once it has run out, in the order they end, re-reading leases that moved later", async () => {
    const now = monotonicNow();
    const a = { name: "a", expiresAt: now + 20 };
    const b = { name: "b", expiresAt: now + 40 };
    const { sweep, expired, done } = sweepOf(new Set([a, b]), "a");
    sweep.due(a.expiresAt);
    sweep.due(b.expiresAt);
    a.expiresAt = now + 80; // renewed before the first sweep
    await done;
    expect(expired.map(({ name }) => name)).toEqual(["b", "a"]);
    for (const { lateByMs } of expired) expect(lateByMs).toBeGreaterThanOrEqual(0);
  });

  it("after stop() hands nothing over", async () => {
    const stopped = sweepOf(new Set([{ name: "x", expiresAt: monotonicNow() + 10 }]), "x");
    stopped.sweep.due(monotonicNow() + 10);
    stopped.sweep.stop();
    const witness = sweepOf(new Set([{ name: "w", expiresAt: monotonicNow() + 30 }]), "w");
    witness.sweep.due(monotonicNow() + 30);
    await witness.done;
    expect(stopped.expired).toEqual([]);
  });
});
