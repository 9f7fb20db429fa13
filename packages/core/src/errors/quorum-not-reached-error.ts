import { LockErrorCode } from "./error-codes.js";
import { LockError } from "./lock-error.js";

/** What one node answered during a quorum operation. */
export interface NodeOutcome {
  /** The node's address (never its credentials). */
  readonly node: string;
  /** "for": granted; "against": held by someone else; "error": failed or timed out. */
  readonly vote: "for" | "against" | "error";
  /** The node's error, when `vote` is "error". */
  readonly error?: unknown;
}

/** Fewer than a majority of nodes agreed; `outcomes` says what each node answered. */
export class QuorumNotReachedError extends LockError {
  readonly outcomes: readonly NodeOutcome[];

  constructor(operation: string, needed: number, outcomes: readonly NodeOutcome[]) {
    const votes = outcomes.filter((o) => o.vote === "for").length;
    super(
      LockErrorCode.QuorumNotReached,
      `${operation} reached ${votes} of ${needed} needed nodes (${outcomes.map((o) => `${o.node}: ${o.vote}`).join(", ")}).`,
    );
    this.outcomes = outcomes;
  }
}
