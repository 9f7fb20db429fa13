import { grpcDeadline } from "./grpc-deadline.js";
/**
 * Call options whose `deadline` is read afresh by every attempt: etcd3 retries a failed call on
 * another member with the same options object, and a fixed deadline would leave the retries none.
 */
export function perAttemptDeadline(timeoutMs: number): { readonly deadline: number } {
  return {
    get deadline() {
      return grpcDeadline(timeoutMs);
    },
  };
}
