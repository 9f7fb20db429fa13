// What npm would publish, checked before it is: `node tools/pack-check.mjs` packs every publishable workspace (not
// "private") into a temp dir with `npm pack`, then checks each tarball:
// - contents: package.json, LICENSE, README.md, CHANGELOG.md, every file its exports/bin name (dist .js and .d.ts),
//   and no test files;
// - the packed package.json: no "distlock-source" condition (a workspace-only way to reach src/), and the publishing
//   metadata (license, repository.directory, keywords, engines.node, publishConfig.access "public");
// - publint --strict (warnings fail too);
// - @arethetypeswrong/core's checks as its CLI runs them with --profile esm-only: the packages are ESM only ("type": "module", no CommonJS build, no
//   "require" condition), so attw's node10 resolution (no `exports` support) and node16-from-CJS (require of ESM,
//   which Node >= 20.19, our engines floor, allows) are not targets; node16-from-ESM and bundler must be clean.
// Also: every publishable package is in the changesets "fixed" group. Reads dist/, so build first (`npm run pack:check` does).
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { checkPackage, createPackageFromTarballData } from "@arethetypeswrong/core";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const REQUIRED_FILES = ["package.json", "LICENSE", "README.md", "CHANGELOG.md"];
/** The resolutions attw's `--profile esm-only` leaves out (see the top of this file). */
const ESM_ONLY_IGNORED_RESOLUTIONS = ["node10", "node16-cjs"];
const TEST_FILE = /(^|\/)test\/|\.test\.|\.test-support\./;

const publishable = readdirSync(join(root, "packages"))
  .map((dir) => ({ dir: `packages/${dir}`, manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => manifest.private !== true);

const temp = mkdtempSync(join(tmpdir(), "distlock-pack-check-"));
const problems = [];
try {
  const packArgs = ["pack", "--json", "--pack-destination", temp, ...publishable.flatMap(({ dir }) => ["--workspace", dir])];
  const packed = JSON.parse((await run("npm", packArgs, { cwd: root, maxBuffer: 64 * 1024 * 1024 })).stdout);
  checkChangesetGroup();
  const results = await inBatches(2, publishable, ({ dir, manifest }) => {
    const pack = packed.find((entry) => entry.name === manifest.name);
    if (pack === undefined) throw new Error(`npm pack produced no tarball for ${manifest.name}`);
    return checkTarball(dir, pack);
  });
  for (const line of results) console.log(line);
} finally {
  rmSync(temp, { recursive: true, force: true });
}
if (problems.length > 0) {
  console.error(`\npack check failed:\n${problems.map((problem) => `- ${problem}`).join("\n")}`);
  process.exit(1);
}
console.log(`\npack check passed: ${publishable.length} packages`);

async function checkTarball(dir, pack) {
  const name = pack.name;
  const tarball = join(temp, pack.filename);
  const files = new Set(pack.files.map((file) => file.path));
  const fail = (message) => problems.push(`${name}: ${message}`);

  for (const required of REQUIRED_FILES) if (!files.has(required)) fail(`tarball lacks ${required}`);
  for (const file of files) if (TEST_FILE.test(file)) fail(`tarball ships a test file: ${file}`);

  const manifest = JSON.parse((await run("tar", ["-xzOf", tarball, "package/package.json"], { maxBuffer: 16 * 1024 * 1024 })).stdout);
  if (JSON.stringify(manifest).includes("distlock-source")) fail(`packed package.json still has a "distlock-source" condition`);
  if (typeof manifest.license !== "string") fail("no license");
  if (manifest.repository?.directory !== dir) fail(`repository.directory is not "${dir}"`);
  if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) fail("no keywords");
  if (typeof manifest.engines?.node !== "string") fail("no engines.node");
  if (manifest.publishConfig?.access !== "public") fail('publishConfig.access is not "public"');

  const targets = [...Object.values(manifest.exports ?? {}).flatMap((target) => (typeof target === "string" ? [target] : Object.values(target)))];
  targets.push(...Object.values(typeof manifest.bin === "string" ? { [name]: manifest.bin } : (manifest.bin ?? {})));
  for (const target of targets) if (!files.has(target.replace(/^\.\//, ""))) fail(`exports/bin name ${target}, which is not in the tarball`);
  if (![...files].some((file) => /^dist\/.*\.js$/.test(file)) || ![...files].some((file) => /^dist\/.*\.d\.ts$/.test(file))) {
    fail("no dist .js or .d.ts in the tarball");
  }

  const publint = await tool(bin("publint"), ["run", tarball, "--strict"]);
  if (!publint.ok) fail(`publint:\n${publint.output}`);
  const attw = await typesCheck(tarball);
  if (!attw.ok) fail(`attw:\n${attw.output}`);

  const entries = Object.keys(manifest.exports ?? {}).join(" ");
  return `${name.padEnd(22)} ${String(files.size).padStart(4)} files  publint ${publint.ok ? "ok" : "FAILED"}  attw (esm-only) ${attw.ok ? "ok" : "FAILED"}  [${entries}]`;
}

/**
 * attw's checks of a tarball with `--profile esm-only`, run in this process: the CLI loaded TypeScript again for each
 * package, most of its time.
 */
async function typesCheck(tarball) {
  const analysis = await checkPackage(createPackageFromTarballData(new Uint8Array(readFileSync(tarball))));
  if (!analysis.types) return { ok: false, output: "no types found" };
  const problems = analysis.problems.filter((problem) => !ESM_ONLY_IGNORED_RESOLUTIONS.includes(problem.resolutionKind));
  const described = problems.map(
    ({ kind, entrypoint, resolutionKind }) => `${kind}${entrypoint ? ` at ${entrypoint}` : ""}${resolutionKind ? ` (${resolutionKind})` : ""}`,
  );
  return { ok: problems.length === 0, output: described.join("\n") };
}

/** Runs a checker; ok when it exits 0. */
async function tool(file, args) {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: temp, maxBuffer: 16 * 1024 * 1024 });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    return { ok: false, output: `${error.stdout ?? ""}${error.stderr ?? error.message}` };
  }
}

function checkChangesetGroup() {
  const { fixed = [] } = JSON.parse(readFileSync(join(root, ".changeset", "config.json"), "utf8"));
  const group = fixed.find((names) => names.includes("@distlock/core")) ?? [];
  for (const { manifest } of publishable) {
    if (!group.includes(manifest.name)) problems.push(`${manifest.name}: not in the "fixed" group of .changeset/config.json`);
  }
}

/** Maps items `size` at a time (two cores here), in order. */
async function inBatches(size, items, map) {
  const results = [];
  for (let start = 0; start < items.length; start += size) results.push(...(await Promise.all(items.slice(start, start + size).map(map))));
  return results;
}
