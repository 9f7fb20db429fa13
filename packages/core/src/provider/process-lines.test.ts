import { describe, expect, it } from "vitest";
import { ProcessLines } from "./process-lines.js";

describe("ProcessLines", () => {
  it("lets waiters of one key go one at a time in arrival order, and other keys independently", async () => {
    const queue = new ProcessLines();
    const signal = new AbortController().signal;
    const order: string[] = [];
    const tickets = ["a1", "a2", "a3"].map((name) => ({ name, ticket: queue.enter("a") }));
    const other = queue.enter("b");
    const runs = tickets.map(async ({ name, ticket }) => {
      await ticket.turn(signal);
      order.push(name);
      await Promise.resolve();
      ticket.leave();
    });
    await other.turn(signal);
    order.push("b1");
    await Promise.all(runs);
    expect(order.filter((n) => n.startsWith("a"))).toEqual(["a1", "a2", "a3"]);
    expect(order).toContain("b1");
  });

  it("a waiter that leaves before its turn does not block the ones behind it", async () => {
    const queue = new ProcessLines();
    const signal = new AbortController().signal;
    const first = queue.enter("k");
    const quitter = queue.enter("k");
    const last = queue.enter("k");
    quitter.leave();
    first.leave();
    await last.turn(signal);
    last.leave();
  });

  it("turn resolves on abort without taking the turn", async () => {
    const queue = new ProcessLines();
    queue.enter("k");
    const controller = new AbortController();
    const waiting = queue.enter("k").turn(controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
  });
});
