import { monotonicNow } from "@distlock/core/internal";
import { describe, expect, it } from "vitest";
import { QuorumReleaseWatch } from "./quorum-release-watch.js";

const NEVER = 60_000;

function watchFrom(lastAttemptAt: () => number = () => 0): QuorumReleaseWatch {
  const watch = new QuorumReleaseWatch({ waiterId: "me", needed: 3, lastAttemptAt });
  watch.subscribed([], true);
  return watch;
}

/** Resolves with true if `watch.next` woke before `withinMs`, false if it slept through. */
async function wakes(watch: QuorumReleaseWatch, withinMs: number): Promise<boolean> {
  const startedAt = monotonicNow();
  await watch.next(withinMs, new AbortController().signal);
  return monotonicNow() - startedAt < withinMs - 5;
}

describe("QuorumReleaseWatch", () => {
  it("wakes once a majority of nodes announced a release and one of them named this waiter", async () => {
    const watch = watchFrom();
    const woke = watch.next(NEVER, new AbortController().signal);
    watch.hear("a", "other");
    watch.hear("b", "other");
    watch.hear("c", "me");
    await woke;
    watch.close();
  });

  it("sleeps through releases that name only other waiters, however many", async () => {
    const watch = watchFrom();
    for (const node of ["a", "b", "c", "d", "e"]) watch.hear(node, "other");
    expect(await wakes(watch, 100)).toBe(false);
    watch.close();
  });

  it("sleeps while only a minority announced, even if it named this waiter", async () => {
    const watch = watchFrom();
    watch.hear("a", "me");
    watch.hear("b", "me");
    expect(await wakes(watch, 100)).toBe(false);
    watch.close();
  });

  it("ignores announcements made before the latest attempt began: that attempt already saw them", async () => {
    let lastAttemptAt = 0;
    const watch = watchFrom(() => lastAttemptAt);
    for (const node of ["a", "b", "c"]) watch.hear(node, "me");
    lastAttemptAt = monotonicNow() + 1;
    expect(await wakes(watch, 100)).toBe(false);
    watch.close();
  });

  it("a reconnect (null: news may be lost) counts as naming this waiter", async () => {
    const watch = watchFrom();
    watch.hear("a", "other");
    watch.hear("b", "other");
    watch.hear("c", null);
    expect(await wakes(watch, NEVER)).toBe(true);
    watch.close();
  });
});
