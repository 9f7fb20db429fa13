// The API report of every public entry point of every publishable package: `node tools/api-report.mjs` fails when a
// built package's public .d.ts surface differs from its committed report; `--update` rewrites the reports.
// Reads dist/, so build first (the npm scripts `api:check` and `api:update` do).
// A type that an entry point's declarations reach but do not export ("forgotten") fails the check, unless another public
// entry point of the same package exports it: users can import it from there (a driver's `DriverLockProvider` returns
// the application's `Lock`, which `@distlock/core` exports). API Extractor looks at one entry point at a time.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompilerState, Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const update = process.argv.includes("--update");
const root = join(import.meta.dirname, "..");
const tempFolder = mkdtempSync(join(tmpdir(), "distlock-api-report-"));
const failed = [];
const forgotten = [];

const entryPoints = [];
for (const dir of readdirSync(join(root, "packages"))) {
  const packageFolder = join(root, "packages", dir);
  const manifest = JSON.parse(readFileSync(join(packageFolder, "package.json"), "utf8"));
  if (manifest.private) continue;
  const publicEntries = Object.entries(manifest.exports).filter(([subpath]) => !subpath.endsWith("/internal"));
  const exportedByPackage = new Set(publicEntries.flatMap(([, target]) => exportedNames(join(packageFolder, target.types))));
  for (const [subpath, target] of publicEntries) {
    const reportName = subpath === "." ? dir : `${dir}-${subpath.slice(2)}`;
    entryPoints.push({ packageFolder, manifest, subpath, exportedByPackage, config: prepare(packageFolder, target.types, reportName) });
  }
}

// One TypeScript program for every entry point: building one per entry point took most of the run.
const [first] = entryPoints;
const compilerState = CompilerState.create(first.config, {
  additionalEntryPoints: entryPoints.map(({ config }) => config.mainEntryPointFilePath),
});
for (const { packageFolder, manifest, subpath, exportedByPackage, config } of entryPoints) {
  mkdirSync(join(packageFolder, "api-report"), { recursive: true });
  const result = Extractor.invoke(config, {
    compilerState,
    localBuild: update,
    messageCallback: (message) => {
      if (message.messageId !== "ae-forgotten-export") return;
      message.handled = true;
      const symbol = /The symbol "([^"]+)"/.exec(message.text)?.[1];
      if (symbol === undefined || !exportedByPackage.has(symbol)) forgotten.push(`${manifest.name}${subpath.slice(1)}: ${message.text}`);
    },
  });
  if (!result.succeeded || (update && result.apiReportChanged)) {
    (result.succeeded ? console.log : console.error)(
      `${manifest.name} ${subpath}: ${result.succeeded ? "report updated" : "public API differs from its report"}`,
    );
  }
  if (!result.succeeded) failed.push(`${manifest.name}${subpath.slice(1)}`);
}
rmSync(tempFolder, { recursive: true, force: true });
if (forgotten.length > 0) {
  console.error(`Types reached from an entry point that no public entry point of the package exports:\n  ${forgotten.join("\n  ")}`);
  process.exit(1);
}
if (failed.length > 0) {
  console.error(`The public API changed: ${failed.join(", ")}. Review the diff, then run \`npm run api:update\` and commit the reports.`);
  process.exit(1);
}

/** The names an entry point's declaration file exports: its `export { … }` / `export type { … }` lists, and local exports. */
function exportedNames(dtsPath) {
  const text = readFileSync(dtsPath, "utf8");
  const names = [];
  for (const [, list] of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of list.split(",")) {
      const name = item
        .replace(/\btype\s+/, "")
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) names.push(name);
    }
  }
  for (const [, name] of text.matchAll(/export\s+(?:declare\s+)?(?:abstract\s+)?(?:class|interface|type|function|const|enum)\s+(\w+)/g)) names.push(name);
  return names;
}

function prepare(packageFolder, typesPath, reportName) {
  return ExtractorConfig.prepare({
    packageJsonFullPath: join(packageFolder, "package.json"),
    configObjectFullPath: undefined,
    configObject: {
      projectFolder: packageFolder,
      mainEntryPointFilePath: join(packageFolder, typesPath),
      compiler: { tsconfigFilePath: join(packageFolder, "tsconfig.build.json") },
      apiReport: { enabled: true, reportFileName: reportName, reportFolder: join(packageFolder, "api-report"), reportTempFolder: tempFolder },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: "error" } },
        extractorMessageReporting: {
          default: { logLevel: "error" },
          // Release tags (@public/@beta) are not used: the entry points themselves say what is public.
          "ae-missing-release-tag": { logLevel: "none" },
          "ae-undocumented": { logLevel: "none", addToApiReportFile: false },
          // A type reachable from an entry point but declared elsewhere in the package is listed in the report.
          "ae-forgotten-export": { logLevel: "none", addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: "none" } },
      },
    },
  });
}
