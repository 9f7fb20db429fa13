import { RENEW_FRACTION } from "@distlock/core/internal";
import type { CheckStatus } from "./doctor-report.js";

/** Above this share of the lease, a round trip leaves too little margin for a slow call or a GC pause. */
const WARN_SHARE = 0.1;

/** p50/p99 of round trips (ms), judged against the lease: the watchdog renews every third of it, so a round trip must fit well inside. */
export function roundTripVerdict(samples: readonly number[], ttlMs: number): { status: CheckStatus; found: string; change?: string } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  const [p50, p99] = [at(0.5), at(0.99)];
  const share = p99 / ttlMs;
  const found = `acquire+release p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${sorted.length} rounds: ${(share * 100).toFixed(2)} % of a ${ttlMs} ms lease`;
  const change = "use a longer lease (ttlMs) or put the backend closer to the application";
  if (share >= RENEW_FRACTION) return { status: "fail", found: `${found}; the watchdog renews every ${Math.round(ttlMs * RENEW_FRACTION)} ms`, change };
  if (share >= WARN_SHARE) return { status: "warn", found, change };
  return { status: "ok", found };
}
