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
 * Longest known file first (`tools/test-durations.json` lists those over 5 s; the rest follow in vitest's order): a
 * fresh clone has no vitest results cache, and in vitest's own order a 27 s file started 725 s in and ran alone for the
 * last 28 s of the run.
 */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds = (file: TestSpecification) => knownDurations[relative(root, file.moduleId)] ?? 0;
    return sorted.sort((a, b) => seconds(b) - seconds(a));
  }
}

export default defineConfig({
  resolve: { alias: sourceAliases },
  ssr: { noExternal: [/^@distlock\//] },
  test: {
    /**
     * One project, every file sharing its worker's modules (`isolate: false`) instead of importing everything again:
     * a file's imports cost more CPU than most files' tests, and on 2 cores the suite is CPU-bound. With one project per
     * package a worker that moved to another package's file was stopped and another started, importing all again.
     * Files must therefore leave no module state behind: servers and workers end in `afterAll`, spies are restored,
     * `process.env` is put back, and no test assumes what another file registered (a URL scheme, a backend). Run one package's files by path:
     * `npx vitest run packages/redis`.
     */
    isolate: false,
    include: ["packages/*/src/**/*.test.ts", "tools/*/src/**/*.test.ts", "bench/src/**/*.test.ts", "examples/*/src/**/*.test.ts"],
    // The bound the integration files had as projects (they start servers and wait out leases and sessions); the fault
    // matrix's rows set their own, longer one. Unit files had vitest's 5 s and share this one now.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Four test files more than there are cores, not vitest's cores − 1: the integration files mostly wait on servers and
    // leases. On 2 cores (one project): 3 files at a time 735-757 s, 4 at a time 651 s (user+sys CPU 1,180 and 1,141 s);
    // on a faster hour of the VM (2026-12-01), 4 at a time 404 s with the cores 68 % busy, 6 at a time 347 s, 87 % busy.
    maxWorkers: availableParallelism() + 4,
    sequence: { sequencer: LongestFirstSequencer },
  },
});
