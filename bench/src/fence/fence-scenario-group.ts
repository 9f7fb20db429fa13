import { SqlLockProvider } from "@distlock/sql";
import { startPostgres } from "@distlock/test-servers";
import type { BenchTable, BenchTarget, ScenarioGroup } from "../harness/index.js";
import { FENCED_UPDATE, fencedUpdateScenario, PLAIN_UPDATE } from "./fenced-update-scenario.js";
import { optimisticContentionScenario } from "./optimistic-contention-scenario.js";
import { openPriceTable } from "./price-table.js";

/** Issue 20's target for fenced writes. */
const FENCE_TARGETS: readonly BenchTarget[] = [
  {
    claim: "a fenced SQL update costs at most 10 % more than a plain one (p50)",
    value: { table: "fence-sql-update", subject: FENCED_UPDATE, metric: "p50 µs" },
    versus: { subjects: [PLAIN_UPDATE] },
    max: 1.1,
  },
];

/** Fenced and optimistic writes to a PostgreSQL row (one server started for the run). */
export const FENCE_SCENARIOS: ScenarioGroup = {
  name: "Fenced writes (@distlock/fence, PostgreSQL on 127.0.0.1)",
  targets: FENCE_TARGETS,
  async run(scale): Promise<BenchTable[]> {
    const server = await startPostgres();
    const locks = new SqlLockProvider({ url: server.url });
    try {
      const single = await openPriceTable(server.url, 1);
      const lock = await locks.acquire("bench:fence:held", { ttlMs: 600_000 });
      const update = await fencedUpdateScenario(single, lock, scale);
      await lock.release();
      await single.destroy();
      const shared = await openPriceTable(server.url, 16);
      const contention = await optimisticContentionScenario(shared, locks, scale);
      await shared.destroy();
      return [update, contention];
    } finally {
      await locks.close();
      await server.close();
    }
  },
};
