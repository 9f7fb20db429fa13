import type { NodeReply, RedlockNode } from "../connection/redlock-node.js";

/** How long a fan-out's nodes may take, and what a missing answer is reported as. */
export interface FanOutBound {
  /** Names the call in a timeout's message, e.g. "acquire". */
  readonly operation: string;
  readonly timeoutMs: number;
  /** The longest bound for a node still making its first connection (see `RedlockNode.answerBoundMs`). */
  readonly firstConnectMs: number;
}

/** What a fan-out calls and how long it waits. */
export interface FanOutOptions<T> {
  readonly bound?: FanOutBound | undefined;
  /** Settle early once the answers in (undefined: no answer yet) decide the outcome. @default never */
  readonly enough?: (answers: ReadonlyArray<NodeReply<T> | undefined>) => boolean;
  /** @default every node */
  readonly nodes?: readonly RedlockNode[];
}
