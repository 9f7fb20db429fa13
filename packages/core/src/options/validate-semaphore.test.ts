import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { validatePermitOptions, validateSemaphoreOptions } from "./validate-semaphore.js";

function fieldOf(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error.field;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("validateSemaphoreOptions", () => {
  it.each([
    [{ permits: 0 }],
    [{ permits: -2 }],
    [{ permits: 2.5 }],
    [{ permits: Number.POSITIVE_INFINITY }],
    [{ permits: "2" }],
    [{ permits: 1_000_001 }],
    [{}],
  ])("rejects %j naming options.permits", (options) => {
    expect(fieldOf(() => validateSemaphoreOptions(options))).toBe("options.permits");
  });

  it("rejects a missing options object and unknown options by name", () => {
    expect(fieldOf(() => validateSemaphoreOptions(undefined))).toBe("options");
    expect(fieldOf(() => validateSemaphoreOptions({ permits: 2, fair: true }))).toBe("options.fair");
  });

  it("returns the permit count", () => {
    expect(validateSemaphoreOptions({ permits: 5 })).toBe(5);
  });
});

describe("validatePermitOptions", () => {
  it.each([[{ count: 0 }], [{ count: 4 }], [{ count: 1.5 }], [{ count: "1" }], [{ count: null }]])(
    "rejects %j with 3 permits naming options.count",
    (options) => {
      expect(fieldOf(() => validatePermitOptions(options, 3))).toBe("options.count");
    },
  );

  it("refuses an owner (permits never re-enter) and checks the lock options as acquire does", () => {
    expect(fieldOf(() => validatePermitOptions({ owner: "trace" }, 3))).toBe("options.owner");
    expect(fieldOf(() => validatePermitOptions({ ttlMs: -1 }, 3))).toBe("options.ttlMs");
    expect(fieldOf(() => validatePermitOptions({ count: 1, tllMs: 5 }, 3))).toBe("options.tllMs");
  });

  it("defaults count to 1 and passes the lock options on", () => {
    expect(validatePermitOptions(undefined, 3).count).toBe(1);
    expect(validatePermitOptions({ count: 3, ttlMs: 500 }, 3)).toEqual({ count: 3, lockOptions: expect.objectContaining({ ttlMs: 500 }) });
  });
});
