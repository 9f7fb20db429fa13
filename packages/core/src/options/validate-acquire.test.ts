import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { validateAcquireOptions } from "./validate-acquire.js";

function rejection(options: unknown): { field: string; message: string } {
  try {
    validateAcquireOptions(options);
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    return { field: error.field, message: error.message };
  }
  throw new Error("expected a rejection");
}

describe("validateAcquireOptions", () => {
  it.each([
    [{ ttlMs: 0 }, "options.ttlMs", "greater than 0"],
    [{ ttlMs: "10" }, "options.ttlMs", "number of milliseconds"],
    [{ ttlMs: Number.NaN }, "options.ttlMs", "finite"],
    [{ waitMs: -1 }, "options.waitMs", "0 or more"],
    [{ waitMs: 2 ** 31 }, "options.waitMs", "at most 2147483647"],
    [{ signal: {} }, "options.signal", "AbortSignal"],
    [{ autoRenew: 1 }, "options.autoRenew", "boolean"],
    [{ owner: 7 }, "options.owner", "string"],
    [{ owner: "x".repeat(257) }, "options.owner", "at most 256"],
    [{ ttlMs: 10, tllMs: 10 }, "options.tllMs", "not a known option"],
    [[], "options", "object"],
    [null, "options", "object"],
  ])("rejects %j naming %s", (options, field, problem) => {
    const { field: named, message } = rejection(options);
    expect(named).toBe(field);
    expect(message).toContain(problem);
  });

  it("returns a copy, so a caller changing its options object later does not change a running acquire", () => {
    const signal = new AbortController().signal;
    const options = { ttlMs: 500, waitMs: 0, signal, autoRenew: false, owner: "trace-1" };
    const checked = validateAcquireOptions(options);
    options.ttlMs = 1;
    expect(checked).toMatchObject({ ttlMs: 500, waitMs: 0, signal, autoRenew: false, owner: "trace-1" });
  });

  it("accepts fields set to undefined and an inherited field it does not know", () => {
    const options = Object.assign(Object.create({ inherited: true }), { ttlMs: undefined });
    expect(validateAcquireOptions(options).ttlMs).toBeUndefined();
  });
});
