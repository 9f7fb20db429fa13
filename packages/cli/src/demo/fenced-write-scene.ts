import { fork } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LockProvider } from "@distlock/core";
import { abortableSleep } from "@distlock/core/internal";
import { fencedUpdate } from "@distlock/fence/sql";
import { openPriceShop, PRICE_KEY, PRODUCT, priceOf } from "./price-shop.js";
import type { StaleWriterEvent } from "./stale-writer-protocol.js";

/** What the scene shows: the late write of a holder paused past its lease, refused by the fenced row. */
export interface FencedWriteOutcome {
  readonly lateWriteRefused: boolean;
  readonly finalPrice: number;
}

const LEASE_LAPSE_LIMIT_MS = 10_000;

/**
 * Worker A takes the price lock, reads the price and stalls (a stop-the-world pause) past its 1 s lease before
 * writing; worker B (this process) takes the lapsed lock and writes; A wakes and writes with its old token.
 */
export async function fencedWriteScene(provider: LockProvider, url: string, dir: string, log: (line: string) => void): Promise<FencedWriteOutcome> {
  const shopFile = join(dir, "shop.sqlite");
  const wakeFile = join(dir, "wake-stale-writer");
  const db = await openPriceShop(shopFile, true);
  const script = fileURLToPath(new URL("./stale-writer.js", import.meta.url));
  const writer = fork(script, [], { env: { ...process.env, DISTLOCK_URL: url, DEMO_SHOP_FILE: shopFile, DEMO_WAKE_FILE: wakeFile } });
  const events = on(writer);
  try {
    const holding = await events.next("holding");
    log(
      `fenced write: worker A holds "${PRICE_KEY}" (token ${holding.fencingToken}), reads price ${holding.read}, and stalls between its lock check and its UPDATE of ${holding.write}`,
    );
    await leaseLapse(provider);
    const lock = await provider.acquire(PRICE_KEY, { ttlMs: 5_000 });
    await fencedUpdate(db, lock, { ...PRODUCT, set: { price: 120 } });
    log(`fenced write: A's lease lapsed; worker B takes the lock (token ${lock.fencingToken}) and sets price 120`);
    writeFileSync(wakeFile, "");
    const late = await events.next("written", "refused");
    await lock.release();
    const finalPrice = await priceOf(db);
    const refused = late.type === "refused" && late.code === "FENCED_OUT";
    log(
      `fenced write: worker A wakes and writes ${holding.write} with token ${holding.fencingToken}: ${refused ? "refused (FENCED_OUT)" : `${late.type} ${"code" in late ? late.code : ""}`}; price is ${finalPrice}`,
    );
    return { lateWriteRefused: refused && finalPrice === 120, finalPrice };
  } finally {
    writer.kill("SIGKILL");
    await db.destroy();
  }
}

async function leaseLapse(provider: LockProvider): Promise<void> {
  const deadline = performance.now() + LEASE_LAPSE_LIMIT_MS;
  while ((await provider.inspect(PRICE_KEY)) !== null) {
    if (performance.now() > deadline) throw new Error(`the stalled writer's lease on "${PRICE_KEY}" did not lapse within ${LEASE_LAPSE_LIMIT_MS} ms`);
    await abortableSleep(50);
  }
}

/** The writer's events in order; `next` waits for one of the given types, and rejects if the writer exits first. */
function on(writer: ReturnType<typeof fork>) {
  const queue: StaleWriterEvent[] = [];
  writer.on("message", (event: StaleWriterEvent) => queue.push(event));
  const exited = once(writer, "exit").then(() => Promise.reject(new Error("the stale writer exited before it reported")));
  exited.catch(() => undefined);
  return {
    async next<T extends StaleWriterEvent["type"]>(...types: T[]): Promise<Extract<StaleWriterEvent, { type: T }>> {
      for (;;) {
        const event = queue.shift();
        if (event === undefined) await Promise.race([once(writer, "message"), exited]);
        else if ((types as string[]).includes(event.type)) return event as Extract<StaleWriterEvent, { type: T }>;
      }
    },
  };
}
