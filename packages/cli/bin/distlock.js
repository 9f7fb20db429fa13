#!/usr/bin/env node
// Committed, so npm links the `distlock` command at install time, before anything is built; the CLI itself is dist/.
import { existsSync } from "node:fs";

const entry = new URL("../dist/bin/distlock.js", import.meta.url);
if (existsSync(entry)) {
  await import(entry.href);
} else {
  process.stderr.write("distlock: the CLI is not built yet. Run `npm run build` in the distlock repository, then try again.\n");
  process.exitCode = 1;
}
