import type { DriverGranted, DriverRefused } from "@distlock/core/driver";
import type { WireGrant, WireRefusal } from "./lockd-protocol.js";

/** A grant or refusal as core takes it: the fencing token as a bigint. */
export function fromWire(reply: WireGrant | WireRefusal): DriverGranted | DriverRefused {
  if (!reply.acquired) return { acquired: false, retryAfterMs: reply.retryAfterMs };
  return { acquired: true, fencingToken: BigInt(reply.token), holdCount: reply.holdCount, ttlMs: reply.ttlMs };
}
