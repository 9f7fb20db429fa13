import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources in tests (the "distlock-source" export
// condition), so a test never runs against a stale build. Worker processes spawned by tests load dist/.
const sourceFirst = { resolve: { conditions: ["distlock-source"] }, ssr: { resolve: { conditions: ["distlock-source"] }, noExternal: [/^@distlock\//] } };

export default defineConfig({
  test: {
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
