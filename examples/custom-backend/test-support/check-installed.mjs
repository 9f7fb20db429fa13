// Runs inside the temporary project that installed the packed tarballs (see src/from-tarballs.integration.test.ts):
// reaches the lockd backend by its URL scheme through each public path, and prints what it saw as one JSON line.
import { spawnSync } from "node:child_process";
import { createLockProvider } from "@distlock/core";
import { registerLockBackend } from "@distlock/core/driver";
import { createLockProviderFromConfig, lockBackend, startLockdServer } from "@distlock-example/lockd";

const server = await startLockdServer();
const distlock = (...args) =>
  spawnSync(process.execPath, ["node_modules/@distlock/cli/bin/distlock.js", ...args], { encoding: "utf8", env: { ...process.env, DISTLOCK_BACKENDS: "" } });
try {
  const refusedBeforeRegistration = await createLockProvider(server.url).then(
    () => undefined,
    (error) => ({ code: error.code, field: error.field }),
  );
  registerLockBackend(lockBackend.name, createLockProviderFromConfig, { schemes: lockBackend.schemes });
  const provider = await createLockProvider(`${server.url}?commandTimeoutMs=2000`);
  const lock = await provider.acquire("installed:code");
  const inCode = { backend: provider.backend, fencingToken: String(lock.fencingToken), holder: (await provider.inspect("installed:code"))?.holder };
  await lock.release();
  await provider.close();

  const run = distlock(
    "--backend-module",
    "@distlock-example/lockd",
    "run",
    "installed:cli",
    "--url",
    server.url,
    "--",
    process.execPath,
    "-e",
    "process.stdout.write('token=' + process.env.DISTLOCK_FENCING_TOKEN)",
  );
  const status = distlock("status", "installed:cli", "--backend-module", "@distlock-example/lockd", "--url", server.url, "--json");
  const unloaded = distlock("status", "installed:cli", "--url", server.url);
  console.log(
    JSON.stringify({
      refusedBeforeRegistration,
      inCode,
      cliRun: { status: run.status, stdout: run.stdout, stderr: run.stderr },
      cliStatus: { status: status.status, stdout: status.stdout, stderr: status.stderr },
      cliWithoutModule: { status: unloaded.status, stderr: unloaded.stderr },
    }),
  );
} finally {
  await server.stop();
}
