import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

interface WorkspacePackage {
  name: string;
  exports?: Record<string, string | Record<string, string>>;
}

/** Directories of the root package.json workspaces ("dir" or "dir/*"). */
function workspaceDirs(): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] };
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [join(root, pattern)];
    const parent = join(root, pattern.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name));
  });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * Workspace packages resolve to their TypeScript sources in tests, so a test never runs against a stale build: one
 * exact-match alias per export of every workspace package, its `./dist/X.js` target mapped to `<package>/src/X.ts`
 * (`@distlock/core/driver` → packages/core/src/driver/index.ts). The published package.json files carry no
 * source-only condition. Worker processes spawned by tests load dist/.
 */
function sourceAliases(): Array<{ find: RegExp; replacement: string }> {
  const aliases: Array<{ find: RegExp; replacement: string }> = [];
  for (const dir of workspaceDirs()) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as WorkspacePackage;
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const built = typeof target === "string" ? target : (target.import ?? target.default);
      const match = built === undefined ? null : /^\.\/dist\/(.+)\.js$/.exec(built);
      if (match === null) continue;
      const source = join(dir, "src", `${match[1]}.ts`);
      if (!existsSync(source)) continue; // no source next to it: the import resolves to dist/ as in production
      const specifier = subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
      aliases.push({ find: new RegExp(`^${escapeRegExp(specifier)}$`), replacement: source });
    }
  }
  return aliases;
}

const sourceFirst = { resolve: { alias: sourceAliases() }, ssr: { noExternal: [/^@distlock\//] } };

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
      { ...sourceFirst, test: { name: "fence", include: ["packages/fence/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 } },
      { ...sourceFirst, test: { name: "bench", include: ["bench/src/**/*.test.ts"] } },
      { ...sourceFirst, test: { name: "faults", include: ["tools/faults/src/**/*.test.ts"], testTimeout: 180_000, hookTimeout: 120_000 } },
      {
        ...sourceFirst,
        test: { name: "cli", include: ["packages/cli/src/**/*.test.ts", "examples/*/src/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 120_000 },
      },
    ],
  },
});
