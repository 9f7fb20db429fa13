import { Latch } from "@distlock/core/internal";
import type { Etcd3, IKeyValue, Watcher } from "etcd3";
import { confirmWatch } from "../waiting/confirmed-watch.js";
import type { LineEntry, PermitLine } from "./permit-line.js";

/** What a waiter follows: the counts still ahead of its key, as of the line read at `revision`. */
interface Standing {
  readonly mine: string;
  readonly ahead: Map<string, number>;
  aheadCount: number;
  /** Permits that may be held ahead of the waiter for it to fit. */
  readonly room: number;
  readonly revision: bigint;
}

/** A deletion the watch saw: which key, at which store revision. */
interface Deletion {
  readonly key: string;
  readonly revision: bigint;
}

/**
 * One waiter's watch on a semaphore's whole line. It wakes the waiter only when the deletions it sees (releases,
 * expired leases, waiters giving up) have freed enough permits ahead of its key, or when its own key is gone, so a
 * release costs the other waiters no reads; the waiter then confirms with one read.
 */
export class LineWatch {
  readonly #client: Etcd3;
  readonly #line: Buffer;
  #watcher: Watcher | undefined;
  /** Deletions not yet covered by a read of the line, replayed onto the next standing. */
  #deletions: Deletion[] = [];
  #standing: Standing | undefined;
  #wake = new Latch("stays-open");
  #broken = true;

  private constructor(client: Etcd3, line: Buffer) {
    this.#client = client;
    this.#line = line;
  }

  /** Watches every key under `line` from now on, once etcd confirmed the watch (bounded by `timeoutMs`). */
  static async open(client: Etcd3, line: Buffer, timeoutMs: number): Promise<LineWatch> {
    const watch = new LineWatch(client, line);
    await watch.reopen(timeoutMs);
    return watch;
  }

  /** True once etcd ended the watch (e.g. its revision was compacted away): `reopen()` it, then read the line again. */
  get broken(): boolean {
    return this.#broken;
  }

  /** Replaces the watch with one from now on, confirmed within `timeoutMs`. */
  async reopen(timeoutMs: number): Promise<void> {
    this.#cancel();
    const watcher = this.#client.watch().prefix(this.#line).watcher();
    this.#watcher = watcher;
    watcher.on("delete", (kv: IKeyValue) => {
      if (this.#watcher === watcher) this.#deleted({ key: kv.key.toString("hex"), revision: BigInt(kv.mod_revision) });
    });
    watcher.on("error", () => {
      if (this.#watcher !== watcher) return;
      this.#broken = true;
      this.#wake.open();
    });
    await confirmWatch(watcher, timeoutMs);
    this.#broken = false;
  }

  /** Follows `mine`, which does not fit yet in `line` (read after the watch was confirmed): `next()` wakes when it may. */
  follow(line: PermitLine, mine: LineEntry, permits: number): void {
    const ahead = new Map<string, number>();
    let aheadCount = 0;
    for (const entry of line.entries) {
      if (entry.createRevision >= mine.createRevision) break;
      ahead.set(entry.key.toString("hex"), entry.value.count);
      aheadCount += entry.value.count;
    }
    this.#standing = { mine: mine.key.toString("hex"), ahead, aheadCount, room: permits - mine.value.count, revision: line.revision };
    this.#wake = new Latch("stays-open");
    if (this.#broken) this.#wake.open();
    this.#deletions = this.#deletions.filter((deletion) => deletion.revision > line.revision);
    for (const deletion of this.#deletions) this.#apply(deletion);
  }

  /** Resolves once the followed key may fit or is gone, the watch broke, `timeoutMs` passed, or `signal` aborted; never rejects. */
  next(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return this.#wake.wait(timeoutMs, signal);
  }

  close(): void {
    this.#cancel();
    this.#broken = true;
    this.#wake.open();
  }

  #cancel(): void {
    const watcher = this.#watcher;
    this.#watcher = undefined;
    void watcher?.cancel().catch(() => undefined);
  }

  #deleted(deletion: Deletion): void {
    this.#deletions.push(deletion);
    this.#apply(deletion);
  }

  #apply(deletion: Deletion): void {
    const standing = this.#standing;
    if (standing === undefined || deletion.revision <= standing.revision) return;
    const count = standing.ahead.get(deletion.key);
    if (count !== undefined) {
      standing.ahead.delete(deletion.key);
      standing.aheadCount -= count;
    }
    if (deletion.key === standing.mine || standing.aheadCount <= standing.room) this.#wake.open();
  }
}
