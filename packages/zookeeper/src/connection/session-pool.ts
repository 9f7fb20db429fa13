import { type SessionSettings, ZooKeeperSession } from "./zookeeper-session.js";

/**
 * The driver's current session, opened on first use and replaced once lost. Holds live and die with the session that
 * created their nodes; a new session starts with none.
 */
export class SessionPool {
  readonly #settings: SessionSettings;
  #current: ZooKeeperSession | undefined;
  #closed = false;

  constructor(settings: SessionSettings) {
    this.#settings = settings;
  }

  /** A live, established session. */
  async session(): Promise<ZooKeeperSession> {
    if (this.#closed) throw new Error("the ZooKeeper provider is closed");
    let current = this.#current;
    if (current === undefined || current.lost.aborted) {
      current = new ZooKeeperSession(this.#settings);
      this.#current = current;
    }
    await current.ready;
    return current;
  }

  /** The session in use once established and while not lost, without waiting; never opens one. */
  get established(): ZooKeeperSession | undefined {
    const current = this.#current;
    return current?.established === true && !current.lost.aborted ? current : undefined;
  }

  /** The session in use, if one was opened and is not lost; never opens one. */
  get live(): ZooKeeperSession | undefined {
    return this.#current?.lost.aborted === false ? this.#current : undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#current?.close();
  }
}
