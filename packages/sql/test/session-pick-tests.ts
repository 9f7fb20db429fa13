import type { DriverAcquireRequest } from "@distlock/core/driver";
import { afterAll, expect, it } from "vitest";
import { resolveSqlLockOptions } from "../src/options/resolve-sql-lock-options.js";
import { openSessionTarget } from "../src/session/open-session-target.js";
import { SessionLockDriver } from "../src/session/session-lock-driver.js";
import { queuedOnServer, uniqueKey } from "./session-lock-tests.js";

/**
 * Which session an attempt is sent on. The server re-grants a lock to the session that holds it, so a wait sent on the
 * session a try of the same key was sent on is granted at once: two owners would hold the key. Driven at the driver,
 * where one turn of the event loop can start both (core starts a wait whenever a refused caller's turn comes).
 */
export function sessionPickTests(url: string): void {
  const options = resolveSqlLockOptions({ url, holderLabel: "session-pick" });
  const driver = new SessionLockDriver(openSessionTarget(options), options);
  afterAll(() => driver.close());
  const request = (key: string, ownerSecret: string): DriverAcquireRequest => ({ key, ownerSecret, holder: "session-pick", ttlMs: 10_000 });

  it("a wait started in the turn a try picked its session waits on another session: the key has one holder at a time", async () => {
    // One idle session in the pool, with the idle limit these requests need: both would pick it.
    const warm = uniqueKey("pick-warm");
    expect(await driver.tryAcquire(request(warm, "warm"))).toMatchObject({ acquired: true });
    expect(await driver.release(warm, "warm")).toEqual({ held: true, holdCount: 0 });

    const key = uniqueKey("pick");
    const tried = driver.tryAcquire(request(key, "first"));
    const waiting = driver.acquire(request(key, "second"), { signal: new AbortController().signal });
    // Sent on two sessions, either may reach the server first; on one session both would be granted.
    if ((await tried).acquired) {
      const before = await Promise.race([waiting.then(() => "granted"), queuedOnServer(driver, key).then(() => "queued")]);
      expect(before).toBe("queued");
      expect(await driver.release(key, "first")).toEqual({ held: true, holdCount: 0 });
    } else {
      expect(await driver.release(key, "first")).toEqual({ held: false, holdCount: 0 });
    }
    expect(await waiting).toMatchObject({ acquired: true });
    expect(await driver.inspect(key)).toMatchObject({ holdCount: 1 });
    expect(await driver.release(key, "second")).toEqual({ held: true, holdCount: 0 });
    expect(await driver.inspect(key)).toBeNull();
  });
}
