import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources in tests (the "distlock-source" export
// condition), so a test never runs against a stale build. Worker processes spawned by tests load dist/.
const sourceFirst = { resolve: { conditions: ["distlock-source"] }, ssr: { resolve: { conditions: ["distlock-source"] }, noExternal: [/^@distlock\//] } };

export default defineConfig({
  test: {
    // One test file per core, not vitest's cores − 1 (a single file at a time on a 2-core machine): the integration
    // files mostly wait on servers and leases, and the full run took twice as long one file at a time.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      { ...sourceFirst, test: { name: "core", include: ["packages/core/src/**/*.test.ts"] } },
      { ...sourceFirst, test: { name: "conformance", include: ["packages/conformance/src/**/*.test.ts"] } },
      { ...sourceFirst, test: { name: "servers", include: ["tools/servers/src/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "redis", include: ["packages/redis/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "redlock", include: ["packages/redlock/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "etcd", include: ["packages/etcd/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "sql", include: ["packages/sql/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "bench", include: ["bench/src/**/*.test.ts"] } },
      { ...sourceFirst, test: { name: "faults", include: ["tools/faults/src/**/*.test.ts"], testTimeout: 180_000, hookTimeout: 120_000 } },
      {
        ...sourceFirst,
        test: { name: "cli", include: ["packages/cli/src/**/*.test.ts", "examples/*/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 },
      },
    ],
  },
});
