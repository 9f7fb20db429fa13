import type { NodeOutcome } from "@distlock/core";
import type { RedlockNode } from "../nodes/redlock-node.js";

/** One node's answer to a fanned-out call. */
export type NodeReply<T> =
  | { readonly node: RedlockNode; readonly ok: true; readonly value: T }
  | { readonly node: RedlockNode; readonly ok: false; readonly error: unknown };

/** A fan-out that settled before every node answered. */
export interface EarlyReplies<T> {
  /** The answers in when it settled, in node order. */
  readonly replies: NodeReply<T>[];
  /** The nodes that had not answered yet. */
  readonly pending: RedlockNode[];
  /** The pending nodes' replies, once all of them are in. */
  readonly rest: Promise<NodeReply<T>[]>;
}

/** How long a fan-out's nodes may take, and what a missing answer is reported as. */
export interface FanOutBound {
  /** Names the call in a timeout's message, e.g. "acquire". */
  readonly operation: string;
  readonly timeoutMs: number;
  /** The longest bound for a node still making its first connection (see `RedlockNode.answerBoundMs`). */
  readonly firstConnectMs: number;
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
   * covers the whole fan-out (longer while a node's first connection is being made, see `answerBoundMs`)
   * and a node still silent when it fires gets an error reply naming it.
   */
  async fanOut<T>(call: (node: RedlockNode) => Promise<T>, bound?: FanOutBound, nodes: readonly RedlockNode[] = this.nodes): Promise<NodeReply<T>[]> {
    return (await this.fanOutUntil(call, bound, () => false, nodes)).replies;
  }

  /**
   * Like `fanOut`, but settles as soon as `enough(replies so far)` holds: `replies` are the answers in by then
   * (in node order), `pending` the nodes still to answer, and `rest` their replies once all are in (bounded as usual).
   */
  fanOutUntil<T>(
    call: (node: RedlockNode) => Promise<T>,
    bound: FanOutBound | undefined,
    enough: (replies: readonly NodeReply<T>[]) => boolean,
    nodes: readonly RedlockNode[] = this.nodes,
  ): Promise<EarlyReplies<T>> {
    if (nodes.length === 0) return Promise.resolve({ replies: [], pending: [], rest: Promise.resolve([]) });
    return new Promise((resolve) => {
      const slots: Array<NodeReply<T> | undefined> = new Array(nodes.length);
      let unanswered = nodes.length;
      let early: EarlyReplies<T> | undefined;
      let settleRest: (replies: NodeReply<T>[]) => void = () => undefined;
      const settle = (index: number, reply: NodeReply<T>) => {
        if (slots[index] !== undefined) return;
        slots[index] = reply;
        unanswered -= 1;
        if (unanswered === 0) {
          clearTimeout(timer);
          settleRest(slots.filter((slot, i): slot is NodeReply<T> => early?.pending.includes(nodes[i] as RedlockNode) === true));
        }
        if (early !== undefined) return;
        const replies = slots.filter((slot): slot is NodeReply<T> => slot !== undefined);
        if (unanswered > 0 && !enough(replies)) return;
        const pending = nodes.filter((_, i) => slots[i] === undefined);
        const rest = pending.length === 0 ? Promise.resolve([]) : new Promise<NodeReply<T>[]>((done) => (settleRest = done));
        early = { replies, pending, rest };
        resolve(early);
      };
      const timeoutMs = bound === undefined ? undefined : Math.max(...nodes.map((node) => node.answerBoundMs(bound.timeoutMs, bound.firstConnectMs)));
      // The verdict waits one more turn of the event loop: after a stall (GC, a busy CPU) the timer runs before the
      // replies already waiting in the sockets are read, and those nodes did answer in time.
      const timer =
        bound === undefined
          ? undefined
          : setTimeout(() => {
              setImmediate(() => {
                nodes.forEach((node, i) => {
                  settle(i, { node, ok: false, error: node.timedOut(bound.operation, timeoutMs as number) });
                });
              });
            }, timeoutMs);
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
