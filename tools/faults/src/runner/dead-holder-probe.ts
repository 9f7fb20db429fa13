import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { createLockProvider, type LockProvider } from "@distlock/core";
import { machineNow } from "../history/history-event.js";
import type { HistoryLog } from "./history-log.js";
import type { WorkerProcess } from "./worker-process.js";

const PROBE_INTERVAL_MS = 25;

/**
 * Watches, through the server's own view of the keys (`inspect`), how long a killed worker process keeps keys: those it
 * held when it died, and any granted to one of its waiters after. Records a `dead-holder-keys` event per kill.
 */
export class DeadHolderProbe implements AsyncDisposable {
  readonly #provider: LockProvider;
  readonly #keys: readonly string[];
  readonly #log: HistoryLog;
  readonly #settleMs: number;
  readonly #giveUpMs: number;

  /**
   * Watches `keys` for `settleMs` after each kill (every lease a process had when it died has run out by then) and on
   * while any is still held by it, until `giveUpMs`.
   */
  private constructor(provider: LockProvider, keys: readonly string[], log: HistoryLog, settleMs: number, giveUpMs: number) {
    this.#provider = provider;
    this.#keys = keys;
    this.#log = log;
    this.#settleMs = settleMs;
    this.#giveUpMs = giveUpMs;
  }

  static async open(url: string, keys: readonly string[], log: HistoryLog, settleMs: number, giveUpMs: number): Promise<DeadHolderProbe> {
    return new DeadHolderProbe(await createLockProvider(url), keys, log, settleMs, giveUpMs);
  }

  /** Probes the keys from `killedAt` on, until the dead `worker` (its holder label, "host:pid") holds none of them. */
  async watch(worker: WorkerProcess, killedAt: number): Promise<void> {
    const label = `${hostname()}:${worker.pid}`;
    const heldByDead = (holder: string | undefined) => holder === label || holder?.startsWith(`${label}:`) === true;
    /** Per key ever seen held by the dead process: the first probe that no longer saw it so, or null while it still does. */
    const freedAt = new Map<string, number | null>();
    for (;;) {
      const states = await Promise.all(this.#keys.map((key) => this.#provider.inspect(key).catch(() => undefined)));
      const answeredAt = machineNow();
      states.forEach((state, i) => {
        const key = this.#keys[i] as string;
        if (heldByDead(state?.holder)) freedAt.set(key, null);
        else if (freedAt.get(key) === null) freedAt.set(key, answeredAt);
      });
      const stillHeld = [...freedAt.values()].includes(null);
      if ((!stillHeld && answeredAt - killedAt >= this.#settleMs) || answeredAt - killedAt >= this.#giveUpMs) break;
      await sleep(PROBE_INTERVAL_MS);
    }
    const keys = [...freedAt].map(([key, at]) => ({ key, freedAt: at }));
    this.#log.add({ type: "dead-holder-keys", at: killedAt, worker: worker.name, keys });
  }

  close(): Promise<void> {
    return this.#provider.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
