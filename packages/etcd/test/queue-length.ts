import type { Etcd3 } from "etcd3";

/** Resolves once `condition` holds, re-checked after every change under `prefix` (woken by a watch rather than polling). */
export async function untilKeysUnder(client: Etcd3, prefix: string, condition: () => Promise<boolean>): Promise<void> {
  const watcher = await client.watch().prefix(prefix).create();
  let changed = false;
  let wake: (() => void) | undefined;
  watcher.on("data", () => {
    changed = true;
    wake?.();
  });
  try {
    for (;;) {
      changed = false;
      if (await condition()) return;
      if (!changed) await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    await watcher.cancel();
  }
}

/** Resolves once at least `count` member keys exist under `lockPrefix` (e.g. a waiter has queued). */
export function untilQueueLength(client: Etcd3, lockPrefix: string, count: number): Promise<void> {
  return untilKeysUnder(client, lockPrefix, async () => Number(await client.getAll().prefix(lockPrefix).count()) >= count);
}
