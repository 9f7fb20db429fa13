import type { NodeOutcome } from "@distlock/core";
import { Deadlines } from "@distlock/core/internal";
import type { NodeReply, RedlockNode, ScriptCall } from "../connection/redlock-node.js";
import type { FanOutBound, FanOutOptions } from "./fan-out-options.js";
import { PendingFanOut } from "./pending-fan-out.js";

/** The independent masters of one Redlock and the size of a majority of them. */
export class NodeSet {
  readonly nodes: readonly RedlockNode[];
  /** ⌊N/2⌋ + 1: any two sets this large share a node. */
  readonly quorum: number;
  readonly #deadlines = new Deadlines();

  constructor(nodes: readonly RedlockNode[]) {
    this.nodes = Object.freeze([...nodes]);
    this.quorum = Math.floor(nodes.length / 2) + 1;
    Object.freeze(this);
  }

  /**
   * Calls `nodes` (default: all) in parallel; one reply per node, in node order. With a `bound`, one deadline covers
   * the whole fan-out (longer while a node's first connection is being made, see `answerBoundMs`) and a node still
   * silent when it passes gets an error reply naming it.
   */
  fanOut<T>(call: (node: RedlockNode) => Promise<T>, bound?: FanOutBound, nodes: readonly RedlockNode[] = this.nodes): Promise<NodeReply<T>[]> {
    return this.#fanOut({ bound, nodes }, (node, settle) =>
      call(node).then(
        (value) => settle({ node, ok: true, value }),
        (error: unknown) => settle({ node, ok: false, error }),
      ),
    );
  }

  /**
   * Runs `call`'s script on the nodes, bounded and settled as `options` say: every reply in node order, or, once
   * `options.enough(answers so far)` holds, the replies in by then (in node order); the other nodes still run it.
   */
  runScript(call: ScriptCall, options: FanOutOptions<unknown> = {}): Promise<NodeReply<unknown>[]> {
    return this.#fanOut(options, (node, settle) => node.runScript(call, settle));
  }

  #fanOut<T>(options: FanOutOptions<T>, start: (node: RedlockNode, settle: (reply: NodeReply<T>) => void) => void): Promise<NodeReply<T>[]> {
    const nodes = options.nodes ?? this.nodes;
    if (nodes.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      const fanOut = new PendingFanOut(nodes, options, resolve, this.#deadlines);
      for (let i = 0; i < nodes.length; i++) start(nodes[i] as RedlockNode, (reply) => fanOut.settle(i, reply));
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
