import type { NodeOutcome } from "@distlock/core";
import type { RedlockNode } from "../nodes/redlock-node.js";

/** One node's answer to a fanned-out call. */
export type NodeReply<T> =
  | { readonly node: RedlockNode; readonly ok: true; readonly value: T }
  | { readonly node: RedlockNode; readonly ok: false; readonly error: unknown };

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

  /** Calls `nodes` (default: all) in parallel; one reply per node, in node order. Each call must bound itself. */
  async fanOut<T>(call: (node: RedlockNode) => Promise<T>, nodes: readonly RedlockNode[] = this.nodes): Promise<NodeReply<T>[]> {
    const settled = await Promise.allSettled(nodes.map(call));
    return settled.map((result, i) => {
      const node = nodes[i] as RedlockNode;
      return result.status === "fulfilled" ? { node, ok: true, value: result.value } : { node, ok: false, error: result.reason };
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
