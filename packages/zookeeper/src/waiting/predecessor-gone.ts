import type { WatcherEvent } from "node-zookeeper-client";
import { statOf } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";

/**
 * Resolves once the node at `path` changed or is gone (the waiter then reads its line again), after `recheckMs` at the
 * latest; rejects with `signal.reason` on abort and with the session's reason once it is lost. Only the predecessor is
 * watched, so a release wakes exactly one waiter: no herd.
 */
export async function predecessorGone(session: ZooKeeperSession, path: string, signal: AbortSignal, recheckMs: number): Promise<void> {
  let fired: (() => void) | undefined;
  const changed = new Promise<void>((resolve) => {
    fired = resolve;
  });
  const stat = await statOf(session, path, (_event: WatcherEvent) => fired?.());
  if (stat === null) return;
  await new Promise<void>((resolve, reject) => {
    const finish = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      session.lost.removeEventListener("abort", onLost);
    };
    const onAbort = (): void => {
      finish();
      reject(signal.reason);
    };
    const onLost = (): void => {
      finish();
      reject(session.lost.reason);
    };
    const timer = setTimeout(() => {
      finish();
      resolve();
    }, recheckMs);
    signal.addEventListener("abort", onAbort, { once: true });
    session.lost.addEventListener("abort", onLost, { once: true });
    if (signal.aborted) onAbort();
    else if (session.lost.aborted) onLost();
    void changed.then(() => {
      finish();
      resolve();
    });
  });
}
