import type { EventEmitter } from "node:events";
import { redactCredentials } from "@distlock/core/internal";

/** The last error any of a backend's connections reported, until one of them is ready again. */
export class LastConnectionError {
  #message: string | undefined;

  /** Follows `client`'s errors and readiness; returns `client`. */
  track<C extends EventEmitter>(client: C): C {
    client.on("error", (error: Error) => {
      this.#message = redactCredentials(error.message);
    });
    client.on("ready", () => {
      this.#message = undefined;
    });
    return client;
  }

  /** A failed call's error as text, without credentials, followed by the last connection error when that adds something. */
  explain(error: unknown): string {
    const message = redactCredentials(error instanceof Error ? error.message : String(error));
    const last = this.#message;
    return last === undefined || message.includes(last) ? message : `${message} (last connection error: ${last})`;
  }
}
