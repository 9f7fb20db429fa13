import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { createLockProvider, type LockProvider, type LockState } from "@distlock/core";
import { machineNow } from "../history/history-event.js";
import type { HistoryLog } from "./history-log.js";
import type { WorkerProcess } from "./worker-process.js";

const PROBE_INTERVAL_MS = 25;

/**
 * Watches, through the server's own view of the keys (`inspect`), how long the holds a killed worker process had when
 * it died stay on the server. Records a `dead-holder-keys` event per kill. A hold is told apart by its holder label
 * ("host:pid") and token: a key handed to one of the dead process's waiters after its death has a new token, and is
 * not its hold (a queued waiter keeps its place for a while after a crash, as a backend's README says).
 */
export class DeadHolderProbe implements AsyncDisposable {
  readonly #provider: LockProvider;
  readonly #keys: readonly string[];
  readonly #log: HistoryLog;
  readonly #giveUpMs: number;

  /** Probes `keys` after each kill until the dead process's holds are gone, for at most `giveUpMs`. */
  private constructor(provider: LockProvider, keys: readonly string[], log: HistoryLog, giveUpMs: number) {
    this.#provider = provider;
    this.#keys = keys;
    this.#log = log;
    this.#giveUpMs = giveUpMs;
  }

  static async open(url: string, keys: readonly string[], log: HistoryLog, giveUpMs: number): Promise<DeadHolderProbe> {
    return new DeadHolderProbe(await createLockProvider(url), keys, log, giveUpMs);
  }

  /** Probes the keys from `killedAt` on, until none holds a hold the dead `worker` had at the first probe. */
  async watch(worker: WorkerProcess, killedAt: number): Promise<void> {
    const label = `${hostname()}:${worker.pid}`;
    const heldByDead = (state: LockState | null | undefined) => state?.holder === label || state?.holder.startsWith(`${label}:`) === true;
    /** Per key the dead process held at the first probe: its token, and when a probe first no longer saw that hold. */
    let holds: Map<string, { token: bigint | null; freedAt: number | null }> | undefined;
    for (;;) {
      // undefined: the probe got no answer (the hold's fate unknown); null: the key is free.
      const states = await Promise.all(this.#keys.map((key) => this.#provider.inspect(key).catch(() => undefined)));
      const answeredAt = machineNow();
      if (holds === undefined) {
        holds = new Map(
          states.flatMap((state) => (state != null && heldByDead(state) ? [[state.key, { token: state.fencingToken, freedAt: null }] as const] : [])),
        );
      }
      for (const [i, key] of this.#keys.entries()) {
        const hold = holds.get(key);
        const state = states[i];
        if (hold === undefined || hold.freedAt !== null || state === undefined) continue;
        if (!heldByDead(state) || state?.fencingToken !== hold.token) hold.freedAt = answeredAt;
      }
      const stillHeld = [...holds.values()].some((hold) => hold.freedAt === null);
      if (!stillHeld || answeredAt - killedAt >= this.#giveUpMs) break;
      await sleep(PROBE_INTERVAL_MS);
    }
    const keys = [...holds].map(([key, { freedAt }]) => ({ key, freedAt }));
    this.#log.add({ type: "dead-holder-keys", at: killedAt, worker: worker.name, keys });
  }

  close(): Promise<void> {
    return this.#provider.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
