/** Kinds of safety and liveness violations the checker reports. */
export type ViolationKind =
  /** Two holds' critical sections overlapped while both holders still believed they held the key. */
  | "overlap"
  /** The fenced resource accepted a write whose token is lower than one it accepted before. */
  | "token-regression"
  /** Two different holds wrote with the same token, and the resource accepted both. */
  | "token-reuse"
  /** A hold acquired after another hold was released got a token that is not larger. */
  | "token-order"
  /** A holder wrote after its validity deadline while its `signal` had not aborted. */
  | "unsignalled-stale-write"
  /** A critical section ran past its validity deadline and no `LOCK_LOST` was signalled by its end. */
  | "unsignalled-loss"
  /** A waiter went without the key for longer than the liveness bound while the backend was up. */
  | "starved-waiter";

/** One violation found in a history. */
export interface Violation {
  readonly kind: ViolationKind;
  /** What happened, naming the holds/workers and times involved. */
  readonly detail: string;
}
