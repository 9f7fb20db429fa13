import type { NodeOutcome } from "@distlock/core";
import type { RedlockNode } from "../nodes/redlock-node.js";

/** One node's answer to a fanned-out call. */
export type NodeReply<T> =
  | { readonly node: RedlockNode; readonly ok: true; readonly value: T }
  | { readonly node: RedlockNode; readonly ok: false; readonly error: unknown };

/** How long a fan-out's nodes may take, and what a missing answer is reported as. */
export interface FanOutBound {
  /** Names the call in a timeout's message, e.g. "acquire". */
  readonly operation: string;
  readonly timeoutMs: number;
}

/** The independent masters of one Redlock and the size of a majority of them. */
export class NodeSet {
  readonly nodes: readonly RedlockNode[];
  /** ⌊N/2⌋ + 1: any two sets this large share a node. */
  readonly quorum: number;

  constructor(nodes: readonly RedlockNode[]) {
    this.nodes = Object.freeze([...nodes]);
    this.quorum = Math.floor(nodes.length / 2) + 1;
    Object.freeze(this);
  }

  /**
   * Calls `nodes` (default: all) in parallel; one reply per node, in node order. With a `bound`, one timer
   * covers the whole fan-out and a node still silent when it fires gets an error reply naming it.
   */
  fanOut<T>(call: (node: RedlockNode) => Promise<T>, bound?: FanOutBound, nodes: readonly RedlockNode[] = this.nodes): Promise<NodeReply<T>[]> {
    if (nodes.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      const replies: Array<NodeReply<T> | undefined> = new Array(nodes.length);
      let pending = nodes.length;
      const settle = (index: number, reply: NodeReply<T>) => {
        if (replies[index] !== undefined) return;
        replies[index] = reply;
        if (--pending > 0) return;
        clearTimeout(timer);
        resolve(replies as NodeReply<T>[]);
      };
      const timer =
        bound === undefined
          ? undefined
          : setTimeout(() => {
              nodes.forEach((node, i) => {
                settle(i, { node, ok: false, error: node.timedOut(bound.operation, bound.timeoutMs) });
              });
            }, bound.timeoutMs);
      nodes.forEach((node, i) => {
        call(node).then(
          (value) => settle(i, { node, ok: true, value }),
          (error: unknown) => settle(i, { node, ok: false, error }),
        );
      });
    });
  }

  /** True when this many failed nodes leave too few to ever form a majority. */
  unreachable(errors: number): boolean {
    return this.nodes.length - errors < this.quorum;
  }

  /** The value at least a majority of `values` reach (the quorum-th largest), or undefined when there are too few. */
  majorityValue(values: readonly number[]): number | undefined {
    return [...values].sort((a, b) => b - a)[this.quorum - 1];
  }

  close(): Promise<void> {
    return Promise.allSettled(this.nodes.map((node) => node.close())).then(() => undefined);
  }
}

/** A vote as `QuorumNotReachedError` reports it. */
export function toOutcome(node: RedlockNode, vote: NodeOutcome["vote"], error?: unknown): NodeOutcome {
  return error === undefined ? { node: node.name, vote } : { node: node.name, vote, error };
}
