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

/** A file known to take this many seconds or more starts before every shorter one, whatever its project. */
const LONG_FILE_SECONDS = 30;

/**
 * Long files first, across projects: a fresh clone has no vitest results cache, so vitest would run the projects one
 * after another, each biggest file first, and the largest file of the last project (PostgreSQL, ~110 s) started 400 s
 * in and ran alone at the end. The shorter files follow project by project (projects with the most known seconds
 * first, each one's files longest first): a worker whose next file is of the same project keeps its loaded modules,
 * while one that changes project is stopped and another started, which imports everything again. In one full run the
 * short files' projects alternated 74 times.
 */
class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds = (file: TestSpecification) => knownDurations[relative(root, file.moduleId)] ?? 0;
    const longestFirst = (a: TestSpecification, b: TestSpecification) => seconds(b) - seconds(a);
    const long: TestSpecification[] = [];
    const byProject = new Map<string, TestSpecification[]>();
    for (const file of sorted) {
      const group = seconds(file) >= LONG_FILE_SECONDS ? long : byProject.get(file.project.name);
      if (group === undefined) byProject.set(file.project.name, [file]);
      else group.push(file);
    }
    long.sort(longestFirst);
    const total = (group: TestSpecification[]) => group.reduce((sum, file) => sum + seconds(file), 0);
    const short = [...byProject.values()].sort((a, b) => total(b) - total(a)).flatMap((group) => group.sort(longestFirst));
    return [...long, ...short];
  }
}

const sourceFirst = { resolve: { alias: sourceAliases }, ssr: { noExternal: [/^@distlock\//] } };

/** Integration projects: servers to start, leases and sessions to wait out. */
const INTEGRATION = { testTimeout: 60_000, hookTimeout: 120_000 } as const;

/**
 * One project, its files sharing their worker's modules (`isolate: false`) instead of importing everything again each: a
 * file's imports cost more CPU than most files' tests, and on 2 cores the suite is CPU-bound. One full run went from ~850 s
 * (CI, isolated) to 503 s, imports from 260 s to 85 s. Files must therefore leave no module state behind: servers and
 * workers end in `afterAll`, spies are restored.
 */
function project(name: string, include: string[], timeouts: { testTimeout?: number; hookTimeout?: number } = {}) {
  return { ...sourceFirst, test: { isolate: false, name, include, ...timeouts } };
}

export default defineConfig({
  test: {
    // One test file more than there are cores, not vitest's cores − 1: the integration files mostly wait on servers and
    // leases. On 2 cores, 3 files at a time kept the CPU 73 % busy and the run took 6:54 instead of 9:22 with 2.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      project("core", ["packages/core/src/**/*.test.ts"]),
      project("conformance", ["packages/conformance/src/**/*.test.ts"]),
      project("servers", ["tools/servers/src/**/*.test.ts"], { testTimeout: 120_000, hookTimeout: 120_000 }),
      project("redis", ["packages/redis/src/**/*.test.ts"], INTEGRATION),
      project("redlock", ["packages/redlock/src/**/*.test.ts"], INTEGRATION),
      project("etcd", ["packages/etcd/src/**/*.test.ts"], INTEGRATION),
      project("nats", ["packages/nats/src/**/*.test.ts"], INTEGRATION),
      project("zookeeper", ["packages/zookeeper/src/**/*.test.ts"], INTEGRATION),
      project("sql", ["packages/sql/src/**/*.test.ts"], INTEGRATION),
      project("dynamodb", ["packages/dynamodb/src/**/*.test.ts"], INTEGRATION),
      project("fence", ["packages/fence/src/**/*.test.ts"], INTEGRATION),
      project("opentelemetry", ["packages/opentelemetry/src/**/*.test.ts"], INTEGRATION),
      project("bench", ["bench/src/**/*.test.ts"]),
      project("faults", ["tools/faults/src/**/*.test.ts"], { testTimeout: 180_000, hookTimeout: 120_000 }),
      project("cli", ["packages/cli/src/**/*.test.ts", "examples/*/src/**/*.test.ts"], INTEGRATION),
    ],
  },
});
