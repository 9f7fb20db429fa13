import { MemoryLockProvider } from "@distlock/core";
import { expect, it } from "vitest";
import { MemoryLockProvider as FromSource } from "../../core/src/memory/memory-lock-provider.js";

it("tests load workspace packages from their sources, never from a stale build", () => {
  expect(MemoryLockProvider).toBe(FromSource);
});
