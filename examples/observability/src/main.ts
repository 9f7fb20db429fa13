import { MemoryLockProvider } from "@distlock/core";
import { instrumentLocks } from "@distlock/opentelemetry";
import { contendedRun } from "./contended-run.js";
import { startMetricsServer } from "./metrics-server.js";

// `npm start -- --serve [port]` keeps serving /metrics after the run, until Ctrl-C.
const serve = process.argv.includes("--serve");
const port = Number(process.argv[process.argv.indexOf("--serve") + 1] ?? 0) || 0;

const server = await startMetricsServer(serve ? port : 0);
const instrumentation = instrumentLocks({ meterProvider: server.meterProvider });
const locks = new MemoryLockProvider();
const result = await contendedRun(locks);
process.stdout.write(`memory: ${result.turns} critical sections, ${result.timeouts} timed-out caller\n`);

const exposition = await (await fetch(server.url)).text();
process.stdout.write(
  `${exposition
    .split("\n")
    .filter((line) => line.startsWith("distlock_"))
    .join("\n")}\n`,
);

const stop = async () => {
  instrumentation.close();
  await locks.close();
  await server.close();
};
if (serve) {
  process.stdout.write(`serving ${server.url}; Ctrl-C stops\n`);
  process.once("SIGINT", () => void stop());
} else {
  await stop();
}
