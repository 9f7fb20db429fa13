#!/usr/bin/env node
/**
 * Run before the test suite (`npm test`): makes sure every server binary is present, installing
 * Debian packages if needed, so no install ever happens inside a test timeout. Also removes temp
 * dirs left by test processes that were killed.
 */
import { ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { SERVER_KINDS } from "../binaries/server-kind.js";
import { sweepStaleTempDirs } from "../process/temp-dir.js";

try {
  const binaries = await ensureServerBinaries(SERVER_KINDS);
  for (const [name, path] of binaries) console.log(`${name}: ${path}`);
  const swept = await sweepStaleTempDirs();
  if (swept > 0) console.log(`removed ${swept} stale test server dir(s)`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
