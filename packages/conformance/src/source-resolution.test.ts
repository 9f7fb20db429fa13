import { MemoryLockProvider } from "@distlock/core";
import { expect, it } from "vitest";

it("tests load workspace packages from their sources, never from a stale build", async () => {
  const coreSource = new URL("../../core/src/memory/memory-lock-provider.ts", import.meta.url).href;
  const fromSource = (await import(/* @vite-ignore */ coreSource)) as { MemoryLockProvider: unknown };
  expect(MemoryLockProvider).toBe(fromSource.MemoryLockProvider);
});
