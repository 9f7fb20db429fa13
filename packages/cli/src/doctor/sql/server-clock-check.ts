import { CLOCK_SKEW_WARN_MS, formatOffset } from "../clock-offset.js";
import type { CheckList } from "../doctor-report.js";

/** The database clock against this host's: table-mode leases are judged on the database's clock alone, so only logs and views read a skew. */
export async function checkServerClock(check: string, readServerMs: () => Promise<number>, checks: CheckList): Promise<void> {
  const sentAt = Date.now();
  const started = performance.now();
  const serverMs = await readServerMs();
  const roundTrip = performance.now() - started;
  const offset = serverMs - (sentAt + roundTrip / 2);
  const found = `server clock is ${formatOffset(offset)} this host's (±${(roundTrip / 2).toFixed(1)} ms); leases are judged on the server's clock alone`;
  if (Math.abs(offset) > CLOCK_SKEW_WARN_MS)
    checks.add(check, "warn", found, "run NTP on the server and this host (timestamps in logs and lock views read wrong)");
  else checks.ok(check, found);
}
