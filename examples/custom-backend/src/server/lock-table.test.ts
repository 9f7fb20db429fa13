import { describe, expect, it } from "vitest";
import { LockTable } from "./lock-table.js";

describe("LockTable", () => {
  it("lists keys in UTF-8 byte order, which differs from JavaScript's UTF-16 order", () => {
    const table = new LockTable(() => undefined);
    for (const key of ["p:😀", "p:\uffff", "p:a", "q:a"]) table.acquire(key, `secret-${key}`, "holder", 60_000);
    expect(table.list("p:", 10).map((state) => state.key)).toEqual(["p:a", "p:\uffff", "p:😀"]);
    expect(table.list("p:", 2).map((state) => state.key)).toEqual(["p:a", "p:\uffff"]);
  });

  it("re-entry counts on the server, keeps the token and the longer lease; a key's token survives its release", () => {
    const released: string[] = [];
    const table = new LockTable((key) => released.push(key));
    const first = table.acquire("k", "a", "holder", 60_000);
    expect(table.acquire("k", "a", "holder", 1_000)).toMatchObject({ acquired: true, holdCount: 2, token: "1" });
    expect(table.inspect("k")?.ttlRemainingMs).toBeGreaterThan(50_000);
    expect(table.acquire("k", "b", "other", 1_000)).toMatchObject({ acquired: false });
    expect(table.release("k", "b")).toEqual({ held: false, holdCount: 0 });
    expect(table.release("k", "a")).toEqual({ held: true, holdCount: 1 });
    expect(released).toEqual([]);
    expect(table.release("k", "a")).toEqual({ held: true, holdCount: 0 });
    expect(released).toEqual(["k"]);
    expect(first).toMatchObject({ token: "1" });
    expect(table.acquire("k", "b", "other", 1_000)).toMatchObject({ acquired: true, holdCount: 1, token: "2" });
    expect(JSON.stringify(table.inspect("k"))).not.toContain('"b"');
  });
});
