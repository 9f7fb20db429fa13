import { describe, expect, it } from "vitest";
import { FencedOutError } from "./fenced-out-error.js";
import { InvalidArgumentError } from "./invalid-argument-error.js";
import { LockError } from "./lock-error.js";
import { LockLostError } from "./lock-lost-error.js";
import { redactCredentials } from "./redact-credentials.js";
import { VersionConflictError } from "./version-conflict-error.js";

describe("LockError", () => {
  it("is() matches every subclass and narrows by code", () => {
    const error = new LockLostError("k", "expired");
    expect(LockError.is(error)).toBe(true);
    expect(LockError.is(error, "LOCK_LOST")).toBe(true);
    expect(LockError.is(error, "LOCK_TIMEOUT")).toBe(false);
    expect(error).toBeInstanceOf(LockError);
    expect(error.name).toBe("LockLostError");
  });

  it("is() recognises an error from another copy of the package by its global brand, not by class", () => {
    const foreign = Object.defineProperty(Object.assign(new Error("x"), { code: "LOCK_TIMEOUT" }), Symbol.for("@distlock/core/LockError"), { value: true });
    expect(LockError.is(foreign, "LOCK_TIMEOUT")).toBe(true);
    expect(LockError.is(new Error("plain"))).toBe(false);
    expect(LockError.is({ code: "LOCK_LOST" })).toBe(false);
    expect(LockError.is(null)).toBe(false);
  });

  it("names the field in argument errors", () => {
    const error = new InvalidArgumentError("options.ttlMs", "must be greater than 0");
    expect([error.code, error.field, error.message]).toEqual(["INVALID_ARGUMENT", "options.ttlMs", "Invalid options.ttlMs: must be greater than 0."]);
  });
});

describe("redactCredentials", () => {
  it("masks passwords in URLs and password parameters", () => {
    expect(redactCredentials("connect redis://user:s3cret@h:1 failed")).toBe("connect redis://user:***@h:1 failed");
    expect(redactCredentials("host=db password=s3cret user=x")).toBe("host=db password=*** user=x");
    expect(redactCredentials("redis://h:1 ok")).toBe("redis://h:1 ok");
  });
});

describe("fencing and optimistic errors", () => {
  it("FencedOutError names the resource, both tokens and says nothing was changed", () => {
    const error = new FencedOutError('table "product"', 7n, 9n);
    expect([error.code, error.resource, error.fencingToken, error.storedToken]).toEqual(["FENCED_OUT", 'table "product"', 7n, 9n]);
    expect(error.message).toContain("fencing token 7");
    expect(error.message).toContain("token 9");
    expect(LockError.is(error, "FENCED_OUT")).toBe(true);
  });

  it("VersionConflictError counts the attempts", () => {
    const error = new VersionConflictError('table "product"', 3);
    expect([error.code, error.attempts]).toEqual(["VERSION_CONFLICT", 3]);
    expect(error.message).toContain("3 optimistic attempts");
  });
});
