import type { Etcd3 } from "etcd3";

/** Resolves once at least `count` member keys exist under `lockPrefix` (e.g. a waiter has queued), woken by a watch rather than polling. */
export async function untilQueueLength(client: Etcd3, lockPrefix: string, count: number): Promise<void> {
  const watcher = await client.watch().prefix(lockPrefix).create();
  let changed = false;
  let wake: (() => void) | undefined;
  watcher.on("put", () => {
    changed = true;
    wake?.();
  });
  try {
    for (;;) {
      changed = false;
      if (Number(await client.getAll().prefix(lockPrefix).count()) >= count) return;
      if (!changed) await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    await watcher.cancel();
  }
}
