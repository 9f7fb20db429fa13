import { type SessionLockId, sessionLockId } from "./session-lock-id.js";

/** Keys whose ids are kept: enough for the keys a process takes over and over, small enough not to matter (keys are short). */
const DEFAULT_CAPACITY = 256;

/**
 * The ids of the keys of one lock space, kept for the keys used most recently: a key taken again (the common case) is
 * not hashed again. A miss hashes the key and forgets the least recently used one when full.
 */
export class SessionLockIds {
  readonly #namespace: string;
  readonly #capacity: number;
  /** In order of use, least recent first (a hit moves its key to the end). */
  readonly #ids = new Map<string, SessionLockId>();

  /** `namespace`: hashed with each key (see `sessionLockId`). */
  constructor(namespace: string, capacity = DEFAULT_CAPACITY) {
    this.#namespace = namespace;
    this.#capacity = capacity;
  }

  /** The server's name of `key`. */
  of(key: string): SessionLockId {
    const ids = this.#ids;
    let id = ids.get(key);
    if (id !== undefined) {
      ids.delete(key);
    } else {
      id = sessionLockId(this.#namespace, key);
      if (ids.size >= this.#capacity) ids.delete(ids.keys().next().value as string);
    }
    ids.set(key, id);
    return id;
  }
}
