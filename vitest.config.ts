import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { exportSources } from "./tools/export-sources.mjs";

const root = fileURLToPath(new URL(".", import.meta.url));

/** Directories of the root package.json workspaces ("dir" or "dir/*") that hold a package. */
function workspaceDirs(): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] };
  const dirs = workspaces.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [join(root, pattern)];
    const parent = join(root, pattern.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name));
  });
  return dirs.filter((dir) => existsSync(join(dir, "package.json")));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * Workspace packages resolve to their TypeScript sources in tests, so a test never runs against a stale build: one
 * exact-match alias per export of every workspace package, its `./dist/X.js` target mapped to `<package>/src/X.ts`
 * (`@distlock/core/driver` → packages/core/src/driver/index.ts). The published package.json files carry no
 * source-only condition. Worker processes spawned by tests load dist/.
 */
const sourceAliases = workspaceDirs().flatMap((dir) =>
  exportSources(dir).entries.map(({ specifier, source }) => ({ find: new RegExp(`^${escapeRegExp(specifier)}$`), replacement: source })),
);

/** Seconds per slow test file, from a full run (`tools/test-durations.mjs` regenerates it). */
const knownDurations: Record<string, number> = JSON.parse(readFileSync(join(root, "tools/test-durations.json"), "utf8"));

/**
 * Longest files first, across projects: a fresh clone has no vitest results cache, so vitest would run the projects
 * one after another, each biggest file first, and the largest file of the last project (PostgreSQL, ~110 s) started
 * 400 s in and ran alone at the end. Files not listed (under 5 s) keep vitest's order after the listed ones.
 */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds = (file: TestSpecification) => knownDurations[relative(root, file.moduleId)] ?? 0;
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => seconds(b.file) - seconds(a.file) || a.index - b.index)
      .map(({ file }) => file);
  }
}

const sourceFirst = { resolve: { alias: sourceAliases }, ssr: { noExternal: [/^@distlock\//] } };

export default defineConfig({
  test: {
    // One test file more than there are cores, not vitest's cores − 1: the integration files mostly wait on servers and
    // leases. On 2 cores, 3 files at a time kept the CPU 73 % busy and the run took 6:54 instead of 9:22 with 2.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { ...sourceFirst, test: { name: "core", include: ["packages/core/src/**/*.test.ts"] } },
      { ...sourceFirst, test: { name: "conformance", include: ["packages/conformance/src/**/*.test.ts"] } },
      { ...sourceFirst, test: { name: "servers", include: ["tools/servers/src/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "redis", include: ["packages/redis/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "redlock", include: ["packages/redlock/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "etcd", include: ["packages/etcd/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "nats", include: ["packages/nats/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "zookeeper", include: ["packages/zookeeper/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "sql", include: ["packages/sql/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "dynamodb", include: ["packages/dynamodb/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "fence", include: ["packages/fence/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      {
        ...sourceFirst,
        test: { name: "opentelemetry", include: ["packages/opentelemetry/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 },
      },
      { ...sourceFirst, test: { name: "bench", include: ["bench/src/**/*.test.ts"] } },
      { ...sourceFirst, test: { name: "faults", include: ["tools/faults/src/**/*.test.ts"], testTimeout: 180_000, hookTimeout: 120_000 } },
      {
        ...sourceFirst,
        test: { name: "cli", include: ["packages/cli/src/**/*.test.ts", "examples/*/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 },
      },
    ],
  },
});
