import { type Deadlines, type Expiring, monotonicNow } from "@distlock/core/internal";
import type { NodeReply, RedlockNode } from "../connection/redlock-node.js";
import type { FanOutOptions } from "./fan-out-options.js";

/** One fan-out between its calls and its last answer (see `NodeSet.runScript`). */
export class PendingFanOut<T> implements Expiring {
  readonly deadline: number = Number.POSITIVE_INFINITY;
  readonly timeoutMs: number = 0;
  readonly #nodes: readonly RedlockNode[];
  readonly #options: FanOutOptions<T>;
  readonly #resolve: (replies: NodeReply<T>[]) => void;
  readonly #deadlines: Deadlines;
  readonly #answers: Array<NodeReply<T> | undefined>;
  #unanswered: number;
  /** Set once the caller has its replies. */
  #settled = false;

  constructor(nodes: readonly RedlockNode[], options: FanOutOptions<T>, resolve: (replies: NodeReply<T>[]) => void, deadlines: Deadlines) {
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
    if (--this.#unanswered === 0) this.#deadlines.delete(this);
    if (this.#settled || (this.#unanswered > 0 && this.#options.enough?.(answers) !== true)) return;
    this.#settled = true;
    this.#resolve(this.#unanswered === 0 ? (answers as NodeReply<T>[]) : answers.filter((answer): answer is NodeReply<T> => answer !== undefined));
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
