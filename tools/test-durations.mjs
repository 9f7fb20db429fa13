// Writes tools/test-durations.json (seconds per test file, the files over 5 s) from a vitest JSON report:
//   npx vitest run --reporter=json --outputFile=/tmp/times.json && node tools/test-durations.mjs /tmp/times.json
// The sequencer in vitest.config.ts starts the longest files first; regenerate after adding a slow file.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const report = JSON.parse(readFileSync(process.argv[2], "utf8"));
const durations = Object.fromEntries(
  report.testResults
    .map((file) => [relative(root, file.name), Math.round((file.endTime - file.startTime) / 1000)])
    .filter(([, seconds]) => seconds > 5)
    .sort((a, b) => b[1] - a[1]),
);
writeFileSync(new URL("test-durations.json", import.meta.url), `${JSON.stringify(durations, null, 2)}\n`);
