// With INTEROP_BARRIER set to "<file> <count>": adds a line to the file and waits until it holds `count` lines, one per
// side of the run, so that no side starts its loop (and finishes it) before the others are connected.
import { appendFileSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export async function awaitEveryone() {
  const barrier = process.env.INTEROP_BARRIER;
  if (barrier === undefined) return;
  const space = barrier.lastIndexOf(" ");
  const file = barrier.slice(0, space);
  const count = Number(barrier.slice(space + 1));
  appendFileSync(file, "distlock\n");
  const deadline = performance.now() + 60_000;
  while (
    readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "").length < count
  ) {
    if (performance.now() > deadline) throw new Error("the other sides never came to the barrier");
    await sleep(2);
  }
}
