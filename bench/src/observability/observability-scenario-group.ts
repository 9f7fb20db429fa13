import { startRedis } from "@distlock/test-servers";
import type { BenchTable, BenchTarget, ScenarioGroup } from "../harness/index.js";
import { instrumentationScenario, NO_SUBSCRIBER, OPENTELEMETRY } from "./instrumentation-scenario.js";

/** Issue 23's overhead targets. */
const OBSERVABILITY_TARGETS: readonly BenchTarget[] = [
  {
    claim: "no subscriber: core's event gate costs ≤ 1 % of an uncontended Redis acquire+release",
    value: { table: "observability-redis-uncontended", subject: "core's acquire gate", metric: "gate % of p50" },
    max: 1,
  },
  {
    claim: "OpenTelemetry SDK registered: ≤ 5 % over no subscriber (p50)",
    value: { table: "observability-redis-uncontended", subject: OPENTELEMETRY, metric: "p50 µs" },
    // Round by round: the SDK's few µs are smaller than the drift between two turns' medians on these shared cores.
    versus: { subjects: [NO_SUBSCRIBER], paired: true },
    max: 1.05,
  },
];

/** What listening to core's events costs on the Redis uncontended loop (one redis-server started for the run). */
export const OBSERVABILITY_SCENARIOS: ScenarioGroup = {
  name: "Observability (diagnostics_channel events, @distlock/opentelemetry; Redis on 127.0.0.1)",
  targets: OBSERVABILITY_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const server = await startRedis();
    try {
      return await instrumentationScenario(server.url, scale);
    } finally {
      await server.close();
    }
  },
};
