import type { CallOutcomes } from "@distlock/core/internal";
import { isNoScript } from "../scripts/redis-script.js";
import { encodeCommand } from "./resp-codec.js";

/** A script a connection runs by EVALSHA, and by EVAL once if the server had lost it. */
export interface ConnectionScript {
  readonly sha: string;
  readonly lua: string;
}

/** One call waiting for its reply on a `RespConnection`, in the order the commands were written. */
export interface PendingReply {
  resolve(reply: unknown): void;
  reject(error: Error): void;
  /** A bounded call times out if its deadline is past `now`; answers its deadline while it still waits, else Infinity. */
  expireBy?(now: number): number;
}

/** Writes `command` for `call` on the connection (or queues it there until the connection is up). */
export type SendCommand = (command: string, call: PendingReply) => void;

/**
 * A script call bounded by a deadline, sent as it is made and settled by the connection itself: the caller's promise is the only one made, and
 * the reply, failure, timeout, or reply after the timeout (`outcomes.late`) goes through `outcomes` once. A NOSCRIPT
 * reply sends the script again by EVAL, under the same deadline. `outcomes.retry` is not used.
 */
export class BoundedScriptCall<R, C> implements PendingReply {
  readonly #script: ConnectionScript;
  readonly #keys: readonly string[];
  readonly #args: readonly (string | number)[];
  readonly #deadline: number;
  readonly #timeoutMs: number;
  readonly #outcomes: CallOutcomes<unknown, R, C>;
  readonly #context: C;
  readonly #settle: (value: R | PromiseLike<R>) => void;
  readonly #fail: (reason: unknown) => void;
  readonly #send: SendCommand;
  #done = false;
  #resent = false;

  constructor(
    call: { script: ConnectionScript; keys: readonly string[]; args: readonly (string | number)[]; deadline: number; timeoutMs: number },
    outcomes: CallOutcomes<unknown, R, C>,
    context: C,
    settle: (value: R | PromiseLike<R>) => void,
    fail: (reason: unknown) => void,
    send: SendCommand,
  ) {
    this.#script = call.script;
    this.#keys = call.keys;
    this.#args = call.args;
    this.#deadline = call.deadline;
    this.#timeoutMs = call.timeoutMs;
    this.#outcomes = outcomes;
    this.#context = context;
    this.#settle = settle;
    this.#fail = fail;
    this.#send = send;
    send(encodeCommand("EVALSHA", [this.#script.sha, this.#keys.length], this.#keys, this.#args), this);
  }

  resolve(reply: unknown): void {
    if (this.#done) {
      this.#outcomes.late?.(reply, this.#context);
      return;
    }
    this.#done = true;
    try {
      this.#settle(this.#outcomes.value(reply, this.#context));
    } catch (error) {
      this.#fail(error);
    }
  }

  /** A failure, unless the server had lost the script: then it goes again by EVAL. */
  reject(error: Error): void {
    if (this.#done) return;
    if (!this.#resent && isNoScript(error)) {
      this.#resent = true;
      this.#send(encodeCommand("EVAL", [this.#script.lua, this.#keys.length], this.#keys, this.#args), this);
      return;
    }
    this.#done = true;
    this.#fail(this.#outcomes.error(error, this.#context));
  }

  expireBy(now: number): number {
    if (this.#done) return Number.POSITIVE_INFINITY;
    if (now < this.#deadline) return this.#deadline;
    this.#done = true;
    this.#fail(this.#outcomes.timedOut(this.#timeoutMs, this.#context));
    return Number.POSITIVE_INFINITY;
  }
}
