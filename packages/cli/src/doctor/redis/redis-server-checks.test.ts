import { describe, expect, it } from "vitest";
import { CheckList } from "../doctor-report.js";
import { checkClockSpread } from "../redlock/redlock-node-checks.js";
import { checkRedisServer } from "./redis-server-checks.js";
import type { RedisServerFacts } from "./redis-server-facts.js";

/** What a server would report; the live tests cover what real servers report, these the thresholds no test server can be set up to cross. */
function facts(name: string, fields: Record<string, string>, clockOffsetMs = 0): RedisServerFacts {
  const info = new Map(
    Object.entries({ redis_version: "7.0.15", maxmemory: "0", maxmemory_policy: "noeviction", aof_enabled: "1", role: "master", ...fields }),
  );
  return { name, info, saveConfig: "", clockOffsetMs, timeRoundTripMs: 0.4 };
}

function rowsFor(server: RedisServerFacts) {
  const checks = new CheckList();
  checkRedisServer(server, checks);
  return checks.results;
}

describe("Redis server checks on a server's reported facts", () => {
  it("fails a Redis older than 6.0, whose SET has no KEEPTTL", () => {
    expect(rowsFor(facts("a:1", { redis_version: "5.0.14" })).find((row) => row.check === "redis.version")).toMatchObject({
      status: "fail",
      change: "upgrade to Redis 6.0 or later",
    });
  });

  it("warns of a server clock more than a second off this host's", () => {
    expect(rowsFor(facts("a:1", {}, -4_200)).find((row) => row.check === "redis.clock")).toMatchObject({
      status: "warn",
      found: "server TIME is 4200.0 ms behind this host's clock (±0.2 ms)",
    });
  });

  it("warns when Redlock nodes' clocks are further apart than the drift it allows per lease", () => {
    const checks = new CheckList();
    checkClockSpread([facts("a:1", {}, 0), facts("b:2", {}, 900)], 302, 0.01, 30_000, checks);
    expect(checks.results[0]).toMatchObject({ check: "redlock.clock-drift", status: "warn", found: expect.stringContaining("node clocks 900.0 ms apart") });
  });
});
