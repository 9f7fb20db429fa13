// Backends written from now on use only the public entry points of other packages (`@distlock/core`,
// `@distlock/core/driver`, `@distlock/conformance`, …), as a third party must: `node tools/check-internal-imports.mjs`
// fails when a workspace imports another package's `/internal` subpath, or any path its `exports` do not list.
// The packages that shared internals before this rule keep exactly the imports listed in LEGACY below.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const root = join(import.meta.dirname, "..");

/** Importer → the other packages' unstable subpaths it may keep using. Nothing new belongs here. */
const LEGACY = {
  "@distlock/cli": ["@distlock/core/internal"],
  "@distlock/conformance": ["@distlock/core/internal"],
  "@distlock/etcd": ["@distlock/core/internal"],
  "@distlock/fence": ["@distlock/core/internal", "@distlock/redis/internal"],
  "@distlock/redis": ["@distlock/core/internal"],
  "@distlock/redlock": ["@distlock/core/internal", "@distlock/redis/internal"],
  "@distlock/sql": ["@distlock/core/internal"],
  "@distlock/bench": ["@distlock/core/internal", "@distlock/redis/internal", "@distlock/redlock/internal"],
  "@distlock/fault-matrix": ["@distlock/etcd/internal", "@distlock/redis/internal"],
};

const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts", "*.mts", "*.js", "*.mjs"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter((file) => /^(packages|examples|tools|bench)\//.test(file) && !file.includes("/dist/"));

const manifests = new Map();
function manifestOf(file) {
  for (let dir = dirname(join(root, file)); dir.startsWith(root) && dir !== root; dir = dirname(dir)) {
    if (!manifests.has(dir)) {
      try {
        manifests.set(dir, JSON.parse(readFileSync(join(dir, "package.json"), "utf8")));
      } catch {
        manifests.set(dir, undefined);
      }
    }
    if (manifests.get(dir) !== undefined) return manifests.get(dir);
  }
  return undefined;
}

const publicSubpaths = new Map();
function isPublic(specifier) {
  const [, scope, name, rest] = /^(@[^/]+)\/([^/]+)(\/.*)?$/.exec(specifier) ?? [];
  if (scope === undefined) return true;
  const packageName = `${scope}/${name}`;
  if (!publicSubpaths.has(packageName)) {
    const dir = ["packages", "examples", "tools"]
      .map((parent) => join(root, parent, name))
      .find((candidate) => {
        try {
          return JSON.parse(readFileSync(join(candidate, "package.json"), "utf8")).name === packageName;
        } catch {
          return false;
        }
      });
    const exports = dir === undefined ? { ".": "" } : (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).exports ?? { ".": "" });
    publicSubpaths.set(packageName, new Set(Object.keys(exports).filter((subpath) => !subpath.endsWith("/internal"))));
  }
  return publicSubpaths.get(packageName).has(rest === undefined ? "." : `.${rest}`);
}

const violations = [];
const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)["'](@distlock\/[^"']+)["']/g;
for (const file of files) {
  const importer = manifestOf(file)?.name;
  for (const [, specifier] of readFileSync(join(root, file), "utf8").matchAll(IMPORT)) {
    if (specifier === importer || specifier.startsWith(`${importer}/`) || isPublic(specifier)) continue;
    if (LEGACY[importer]?.includes(specifier)) continue;
    violations.push(`${file}: ${importer ?? "(no package)"} imports ${specifier}, which is not a public entry point`);
  }
}
if (violations.length > 0) {
  console.error(`Imports of another package's internals (use @distlock/core, @distlock/core/driver, @distlock/conformance):\n  ${violations.join("\n  ")}`);
  process.exit(1);
}
console.log(`internal imports: ${files.length} files checked, none outside the legacy list`);
