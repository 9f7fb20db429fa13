// Run by `prepare` after `npm install`: keeps the better-sqlite3 binary this machine compiled where prebuild-install
// looks before it downloads one (the npm cache's `_prebuilds`, under the name of the release asset it would fetch).
// The prebuilt downloads from GitHub fail here, so every install compiled SQLite again (about 80 s on 2 cores); the next
// install of the same version for the same Node ABI and platform on this machine (a fresh clone, CI) unpacks this one.
// prebuild-install loads an unpacked binary before it accepts it and compiles when it cannot.
// Does nothing when the binary is missing or the cache already has it; any failure only skips the warm-up.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const packageDir = join(import.meta.dirname, "..", "node_modules", "better-sqlite3");
const BINARY = "build/Release/better_sqlite3.node";

try {
  if (existsSync(join(packageDir, BINARY))) {
    const require = createRequire(join(packageDir, "package.json"));
    const { cachedPrebuild, getDownloadUrl } = require("prebuild-install/util");
    const prebuildOptions = require("prebuild-install/rc");
    const pkg = require("./package.json");
    const cached = cachedPrebuild(getDownloadUrl({ ...prebuildOptions(pkg), pkg }));
    if (!existsSync(cached)) {
      mkdirSync(dirname(cached), { recursive: true });
      const temp = `${cached}.${process.pid}.tmp`;
      execFileSync("tar", ["-czf", temp, "-C", packageDir, BINARY]);
      renameSync(temp, cached);
      console.log(`better-sqlite3 ${pkg.version}: the compiled binary is cached for the next install (${cached})`);
    }
  }
} catch (error) {
  console.warn(`better-sqlite3's binary was not cached for the next install: ${error instanceof Error ? error.message : error}`);
}
