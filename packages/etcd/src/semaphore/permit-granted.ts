import type { DriverGranted } from "@distlock/core/driver";
import { grantedFrom, type HoldRecord } from "../holds/hold-record.js";

/** What the driver answers for a permit grant: a lock's grant whose hold count is 1 (the record's count is the permits taken). */
export function permitGrantedFrom(record: HoldRecord): DriverGranted {
  return { ...grantedFrom(record), holdCount: 1 };
}
