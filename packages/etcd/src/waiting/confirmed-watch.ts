import { Latch } from "@distlock/core/internal";
import type { IWatchResponse, Watcher } from "etcd3";

/**
 * Waits until etcd confirmed `watcher`, a watch opened "from now" (so etcd keeps it synced; a watch that starts at a
 * past revision is caught up only by etcd's 100 ms sync loop), and returns the store revision it was created at: every
 * change after that revision reaches the watcher, a change before it must be read. Bounded by `timeoutMs`; a watcher
 * that etcd did not confirm in time is cancelled.
 */
export async function confirmWatch(watcher: Watcher, timeoutMs: number): Promise<bigint> {
  watcher.on("error", () => undefined);
  const confirmed = new Latch("stays-open");
  let revision: bigint | undefined;
  watcher.once("connected", (response: IWatchResponse) => {
    revision = BigInt(response.header.revision);
    confirmed.open();
  });
  await confirmed.wait(timeoutMs);
  if (revision === undefined) {
    void watcher.cancel().catch(() => undefined);
    throw new Error(`etcd did not confirm a watch within ${timeoutMs} ms`);
  }
  return revision;
}
