import { loadBackendModules } from "@distlock/core/internal";
import { afterAll, beforeAll, describe } from "vitest";
import { describeBadInput } from "./areas/bad-input.js";
import { describeConfig } from "./areas/config.js";
import { describeFencing } from "./areas/fencing.js";
import { describeInspectAndClose } from "./areas/inspect-and-close.js";
import { describeListing } from "./areas/listing.js";
import { describeMultiKey } from "./areas/multi-key.js";
import { describeMutualExclusion } from "./areas/mutual-exclusion.js";
import { describeNoDeadlock } from "./areas/no-deadlock.js";
import { describeOwnerOnly } from "./areas/owner-only.js";
import { describeReadWriteLock } from "./areas/read-write-lock.js";
import { describeReentrancy } from "./areas/reentrancy.js";
import { describeSemaphore } from "./areas/semaphore.js";
import { describeTtlAndRenewal } from "./areas/ttl-renewal.js";
import { describeWaiting } from "./areas/waiting.js";
import { killSpareWorkers } from "./harness.js";
import { type ConformanceOptions, resolveConformanceOptions } from "./suite-options.js";

const AREAS = [
  describeMutualExclusion,
  describeNoDeadlock,
  describeOwnerOnly,
  describeReentrancy,
  describeTtlAndRenewal,
  describeFencing,
  describeWaiting,
  describeBadInput,
  describeConfig,
  describeInspectAndClose,
  describeListing,
  describeSemaphore,
  describeReadWriteLock,
  describeMultiKey,
];

/** Registers every area of the contract as vitest tests under "<name> conformance". */
export function describeLockProvider(options: ConformanceOptions): void {
  const resolved = resolveConformanceOptions(options);
  describe(`${options.name} conformance`, { timeout: 60_000 }, () => {
    const { backendModule } = resolved;
    if (backendModule !== undefined) beforeAll(() => loadBackendModules([backendModule], "ConformanceOptions.backendModule"));
    afterAll(() => killSpareWorkers(resolved));
    for (const area of AREAS) area(resolved);
  });
}
