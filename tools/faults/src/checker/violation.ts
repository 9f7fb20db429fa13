/** Kinds of safety and liveness violations the checker reports. */
export type ViolationKind =
  /**
   * Critical sections overlapped, while their holders believed they held, with more held than exists: two holds of a
   * lock, or more permits than a semaphore has (each grant counting its `count`).
   */
  | "overlap"
  /** The fenced resource accepted a write whose token is lower than one it accepted before. */
  | "token-regression"
  /** Two different holds wrote with the same token, and the resource accepted both; on a semaphore, two grants got one token. */
  | "token-reuse"
  /**
   * A hold asked for after another hold was released (on a semaphore: after another grant was acquired) got a token
   * that is not larger.
   */
  | "token-order"
  /** A holder wrote (on a semaphore: acted) after its validity deadline while its `signal` had not aborted. */
  | "unsignalled-stale-write"
  /** A semaphore holder acted after its permit's signal had told it that it lost its permits. */
  | "act-after-loss"
  /** A critical section ran past its validity deadline and no `LOCK_LOST` was signalled by its end. */
  | "unsignalled-loss"
  /** A waiter went without the key for longer than the liveness bound while the backend was up. */
  | "starved-waiter"
  /** The server showed a key held by a killed process longer after its death than its lease allows (multi-key rows). */
  | "held-after-death";

/** One violation found in a history. */
export interface Violation {
  readonly kind: ViolationKind;
  /** What happened, naming the holds/workers and times involved. */
  readonly detail: string;
}
