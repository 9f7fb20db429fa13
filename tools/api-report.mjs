// The API report of every public entry point of every publishable package: `node tools/api-report.mjs` fails when a
// built package's public .d.ts surface differs from its committed report; `--update` rewrites the reports.
// Reads dist/, so build first (the npm scripts `api:check` and `api:update` do).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const update = process.argv.includes("--update");
const root = join(import.meta.dirname, "..");
const tempFolder = mkdtempSync(join(tmpdir(), "distlock-api-report-"));
const failed = [];

for (const dir of readdirSync(join(root, "packages"))) {
  const packageFolder = join(root, "packages", dir);
  const manifest = JSON.parse(readFileSync(join(packageFolder, "package.json"), "utf8"));
  if (manifest.private) continue;
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (subpath.endsWith("/internal")) continue;
    mkdirSync(join(packageFolder, "api-report"), { recursive: true });
    const reportName = subpath === "." ? dir : `${dir}-${subpath.slice(2)}`;
    const result = Extractor.invoke(prepare(packageFolder, target.types, reportName), { localBuild: update });
    if (!result.succeeded || (update && result.apiReportChanged)) {
      (result.succeeded ? console.log : console.error)(
        `${manifest.name} ${subpath}: ${result.succeeded ? "report updated" : "public API differs from its report"}`,
      );
    }
    if (!result.succeeded) failed.push(`${manifest.name}${subpath.slice(1)}`);
  }
}
rmSync(tempFolder, { recursive: true, force: true });
if (failed.length > 0) {
  console.error(`The public API changed: ${failed.join(", ")}. Review the diff, then run \`npm run api:update\` and commit the reports.`);
  process.exit(1);
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
          "ae-forgotten-export": { logLevel: "none", addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: "none" } },
      },
    },
  });
}
