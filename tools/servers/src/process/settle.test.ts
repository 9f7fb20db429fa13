import { describe, expect, it } from "vitest";
import { ServerStartError } from "../errors/server-start-error.js";
import { retryOnAddressInUse, settleAll } from "./settle.js";

const portTaken = (): ServerStartError => new ServerStartError("redis:1", "exited", "bind: Address already in use");

describe("retryOnAddressInUse", () => {
  it("tries again while a port was taken", async () => {
    let attempts = 0;
    const value = await retryOnAddressInUse(async () => {
      attempts++;
      if (attempts < 3) throw portTaken();
      return "started";
    });
    expect(value).toBe("started");
    expect(attempts).toBe(3);
  });

  it("gives up after the last attempt", async () => {
    let attempts = 0;
    const failing = retryOnAddressInUse(async () => {
      attempts++;
      throw portTaken();
    }, 2);
    await expect(failing).rejects.toBeInstanceOf(ServerStartError);
    expect(attempts).toBe(2);
  });

  it("does not retry other failures", async () => {
    let attempts = 0;
    const failing = retryOnAddressInUse(async () => {
      attempts++;
      throw new Error("initdb failed");
    });
    await expect(failing).rejects.toThrow("initdb failed");
    expect(attempts).toBe(1);
  });
});

describe("settleAll", () => {
  it("rethrows the failure that happened first, not the first in the list: the others may be its consequences", async () => {
    let failLater = (_error: Error) => {};
    const killedForIt = new Promise<void>((_, reject) => {
      failLater = reject;
    });
    const cause = new Error("conflicting environment variable");
    const failedFirst = Promise.reject(cause);
    failedFirst.catch(() => failLater(new Error("exited (SIGKILL)")));
    const failure = settleAll([killedForIt, failedFirst]);
    await expect(failure).rejects.toBe(cause);
  });

  it("waits for every promise and prefers a port collision among the failures", async () => {
    let slowDone = false;
    const slow = new Promise<void>((resolve) =>
      setTimeout(() => {
        slowDone = true;
        resolve();
      }, 20),
    );
    const failure = settleAll([Promise.reject(new Error("killed")), slow, Promise.reject(portTaken())]);
    await expect(failure).rejects.toSatisfy((error) => error instanceof ServerStartError && error.addressInUse);
    expect(slowDone).toBe(true);
  });
});
