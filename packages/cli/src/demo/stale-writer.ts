import { existsSync } from "node:fs";
import { createLockProvider, LockError } from "@distlock/core";
import { fencedUpdate } from "@distlock/fence/sql";
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from "kysely";
import { openPriceShop, PRICE_KEY, PRODUCT, priceOf } from "./price-shop.js";
import type { StaleWriterEvent } from "./stale-writer-protocol.js";

/** Blocks the whole process, timers and lease watchdog included, as a long stop-the-world GC pause would. */
function stallUntil(file: string): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!existsSync(file)) Atomics.wait(pause, 0, 0, 5);
}

/**
 * Stalls when the UPDATE is built: after the writer checked its lock and before the statement reaches the database,
 * the window no client-side check can close (the lock's own signal would catch a pause that ended earlier).
 */
class StallBeforeUpdate implements KyselyPlugin {
  constructor(readonly onStall: () => void) {}
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (node.kind === "UpdateQueryNode") this.onStall();
    return node;
  }
  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

const report = (event: StaleWriterEvent) => process.send?.(event);
const [shopFile, wakeFile] = [process.env.DEMO_SHOP_FILE ?? "", process.env.DEMO_WAKE_FILE ?? ""];
const provider = await createLockProvider(process.env.DISTLOCK_URL);
const db = await openPriceShop(shopFile);
const lock = await provider.acquire(PRICE_KEY, { ttlMs: 1_000 });
const price = await priceOf(db);
const stalling = db.withPlugin(
  new StallBeforeUpdate(() => {
    report({ type: "holding", fencingToken: String(lock.fencingToken), read: price, write: price - 10 });
    stallUntil(wakeFile);
  }),
);
try {
  await fencedUpdate(stalling, lock, { ...PRODUCT, set: { price: price - 10 } });
  report({ type: "written" });
} catch (error) {
  report({ type: "refused", code: LockError.is(error) ? error.code : String(error) });
}
await db.destroy();
await provider.close();
