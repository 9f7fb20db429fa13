import { type Deadlines, type Expiring, monotonicNow } from "@distlock/core/driver";
import type { RedlockNode } from "../nodes/redlock-node.js";
import type { EarlyReplies, FanOutOptions, NodeReply } from "./node-set.js";

/** One fan-out between its calls and its last answer (see `NodeSet.fanOutUntil`). */
export class PendingFanOut<T> implements Expiring {
  readonly deadline: number = Number.POSITIVE_INFINITY;
  readonly timeoutMs: number = 0;
  readonly #nodes: readonly RedlockNode[];
  readonly #options: FanOutOptions<T>;
  readonly #resolve: (early: EarlyReplies<T>) => void;
  readonly #deadlines: Deadlines;
  readonly #answers: Array<NodeReply<T> | undefined>;
  #unanswered: number;
  /** Set once the caller has its replies: the nodes still pending then, and what settles their `rest`. */
  #early: { readonly pending: readonly RedlockNode[]; readonly settleRest: (replies: NodeReply<T>[]) => void } | undefined;

  constructor(nodes: readonly RedlockNode[], options: FanOutOptions<T>, resolve: (early: EarlyReplies<T>) => void, deadlines: Deadlines) {
    this.#nodes = nodes;
    this.#options = options;
    this.#resolve = resolve;
    this.#deadlines = deadlines;
    this.#answers = new Array(nodes.length).fill(undefined);
    this.#unanswered = nodes.length;
    const { bound } = options;
    if (bound !== undefined) {
      let timeoutMs = 0;
      for (const node of nodes) timeoutMs = Math.max(timeoutMs, node.answerBoundMs(bound.timeoutMs, bound.firstConnectMs));
      this.timeoutMs = timeoutMs;
      this.deadline = monotonicNow() + timeoutMs;
      deadlines.add(this);
    }
  }

  settle(index: number, reply: NodeReply<T>): void {
    const answers = this.#answers;
    if (answers[index] !== undefined) return;
    answers[index] = reply;
    this.#unanswered -= 1;
    if (this.#unanswered === 0) {
      this.#deadlines.delete(this);
      this.#early?.settleRest(
        answers.filter((answer, i): answer is NodeReply<T> => answer !== undefined && this.#early?.pending.includes(this.#nodes[i] as RedlockNode) === true),
      );
    }
    if (this.#early !== undefined) return;
    if (this.#unanswered > 0 && this.#options.enough?.(answers) !== true) return;
    const replies = answers.filter((answer): answer is NodeReply<T> => answer !== undefined);
    const pending = this.#nodes.filter((_, i) => answers[i] === undefined);
    let settleRest: (replies: NodeReply<T>[]) => void = () => undefined;
    const rest = pending.length === 0 ? Promise.resolve([]) : new Promise<NodeReply<T>[]>((done) => (settleRest = done));
    this.#early = { pending, settleRest };
    this.#resolve({ replies, pending, rest });
  }

  /**
   * The deadline passed: every node still silent gets an error reply naming it, one turn of the event loop later:
   * after a stall (GC, a busy CPU) the timer runs before the replies already waiting in the sockets are read, and
   * those nodes did answer in time.
   */
  expire(): void {
    const operation = this.#options.bound?.operation ?? "call";
    setImmediate(() => {
      this.#nodes.forEach((node, i) => {
        this.settle(i, { node, ok: false, error: node.timedOut(operation, this.timeoutMs) });
      });
    });
  }
}
