import { performance } from "node:perf_hooks";

/**
 * grpc-js takes call deadlines as epoch milliseconds. Deriving them from the monotonic clock keeps a
 * wall-clock step (NTP, a VM resume) from stretching or cutting a call's time budget.
 */
export function grpcDeadline(timeoutMs: number): number {
  return performance.timeOrigin + performance.now() + timeoutMs;
}
