import type { Client, ZooKeeperException } from "node-zookeeper-client";
import { CommandTimeoutError } from "./command-timeout-error.js";
import type { PendingCall, PendingCalls } from "./pending-calls.js";
import { isServerAnswer, isZkError, ZK_ERROR } from "./server-answers.js";

/** How a node-zookeeper-client call reports its answer: a value when there is no error. */
export type Callback<T> = (error: ZooKeeperException | null, value: T | undefined) => void;

/** How `ZooKeeperSession.call` treats a request the connection lost or the server never answered. */
export interface CallOptions {
  /** Send it again once reconnected to the session. @default false */
  readonly retryOnLoss?: boolean;
  /** End the session when no answer comes within `commandTimeoutMs`. @default false */
  readonly abandonIfUnanswered?: boolean;
}

/** What the calls of one session share: its client, its pending calls, and what an answer or a silence tells it. */
export interface CallScope {
  readonly client: Client;
  readonly pending: PendingCalls;
  readonly commandTimeoutMs: number;
  /** The server answered a request sent at `sentAt`: the session was alive then. */
  confirm(sentAt: number): void;
  /** Gives the session up for `reason`. */
  abandon(reason: string): void;
}

/**
 * One request of a session, settled once: by its answer, by `commandTimeoutMs` passing (`PendingCalls`), or by the
 * session's loss. A request cut off by a lost connection is sent again once reconnected, with `retryOnLoss`.
 */
export class SessionCall<T> implements PendingCall {
  readonly due: number;
  answered = false;
  readonly #scope: CallScope;
  readonly #operation: string;
  readonly #start: (callback: Callback<T>) => void;
  readonly #options: CallOptions;
  readonly #resolve: (value: T) => void;
  readonly #reject: (error: unknown) => void;
  #resend: (() => void) | undefined;

  constructor(
    scope: CallScope,
    operation: string,
    start: (callback: Callback<T>) => void,
    options: CallOptions,
    resolve: (value: T) => void,
    reject: (error: unknown) => void,
  ) {
    this.due = performance.now() + scope.commandTimeoutMs;
    this.#scope = scope;
    this.#operation = operation;
    this.#start = start;
    this.#options = options;
    this.#resolve = resolve;
    this.#reject = reject;
    scope.pending.add(this);
  }

  /** Sends the request (again, after a reconnect). */
  send(): void {
    if (this.answered) return;
    const sentAt = performance.now();
    try {
      this.#start((error, value) => this.#answer(sentAt, error, value));
    } catch (error) {
      if (this.#settle()) this.#reject(error);
    }
  }

  timedOut(): void {
    if (!this.#settle()) return;
    const error = new CommandTimeoutError(this.#operation, this.#scope.commandTimeoutMs);
    if (this.#options.abandonIfUnanswered === true) this.#scope.abandon(`${error.message}; a create of unknown outcome ends the session`);
    this.#reject(error);
  }

  lost(reason: unknown): void {
    if (this.#settle()) this.#reject(reason);
  }

  #answer(sentAt: number, error: ZooKeeperException | null, value: T | undefined): void {
    if (error === null || isServerAnswer(error)) this.#scope.confirm(sentAt);
    if (this.answered) return;
    if (this.#options.retryOnLoss === true && isZkError(error, ZK_ERROR.connectionLoss)) {
      this.#resend ??= () => this.send();
      this.#scope.client.once("connected", this.#resend);
      return;
    }
    this.#settle();
    if (error === null) this.#resolve(value as T);
    else this.#reject(error);
  }

  #settle(): boolean {
    if (this.answered) return false;
    this.#scope.pending.delete(this);
    if (this.#resend !== undefined) this.#scope.client.removeListener("connected", this.#resend);
    return true;
  }
}
