import { InvalidConfigError } from "@distlock/core";
import { describe, expect, it } from "vitest";
import { ZooKeeperLockProvider } from "../zookeeper-lock-provider.js";
import { resolveZooKeeperLockOptions } from "./resolve-zookeeper-lock-options.js";
import { DEFAULT_ZOOKEEPER_LOCK_OPTIONS } from "./zookeeper-lock-provider-options.js";

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidConfigError) return error.field;
    throw error;
  }
  return undefined;
}

describe("ZooKeeper options", () => {
  it("takes hosts, chroot and settings from a zookeeper:// or zk:// URL", () => {
    const resolved = resolveZooKeeperLockOptions({ url: "zookeeper://a:2181,b:2182/apps/orders?sessionTimeoutMs=4000&commandTimeoutMs=700" });
    expect(resolved).toMatchObject({ hosts: ["a:2181", "b:2182"], chroot: "/apps/orders", sessionTimeoutMs: 4000, commandTimeoutMs: 700 });
    expect(resolveZooKeeperLockOptions({ url: "zk://h" })).toMatchObject({ hosts: ["h:2181"], chroot: "/distlock", recipe: "mutex" });
    expect(resolveZooKeeperLockOptions({ url: "zk://h/apps?recipe=leader-latch" })).toMatchObject({ chroot: "/apps", recipe: "leader-latch" });
  });

  it("applies the defaults without a URL", () => {
    expect(resolveZooKeeperLockOptions({})).toMatchObject({ ...DEFAULT_ZOOKEEPER_LOCK_OPTIONS, holderLabel: undefined });
  });

  it("names the bad field, before anything connects", () => {
    expect(fieldOf(() => new ZooKeeperLockProvider({ sessionTimeoutMs: 0 }))).toBe("options.sessionTimeoutMs");
    expect(fieldOf(() => new ZooKeeperLockProvider({ url: "zk://h/x?commandTimeoutMs=soon" }))).toBe("url.commandTimeoutMs");
    expect(fieldOf(() => new ZooKeeperLockProvider({ chroot: "relative" }))).toBe("options.chroot");
    expect(fieldOf(() => new ZooKeeperLockProvider({ chroot: "/a/../b" }))).toBe("options.chroot");
    expect(fieldOf(() => new ZooKeeperLockProvider({ hosts: ["no-port"] }))).toBe("options.hosts");
    expect(fieldOf(() => new ZooKeeperLockProvider({ hosts: [] }))).toBe("options.hosts");
    expect(fieldOf(() => new ZooKeeperLockProvider({ url: "zk://h?chroot=/x" }))).toBe("url.chroot");
    expect(fieldOf(() => new ZooKeeperLockProvider({ bogus: 1 } as never))).toBe("options.bogus");
    expect(fieldOf(() => new ZooKeeperLockProvider({ recipe: "semaphore" } as never))).toBe("options.recipe");
    expect(fieldOf(() => new ZooKeeperLockProvider({ url: "zk://h/x?recipe=latch" }))).toBe("url.recipe");
  });

  it("refuses credentials without repeating them", () => {
    let message = "";
    try {
      new ZooKeeperLockProvider({ url: "zookeeper://alice:s3cret@h:2181" });
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain("url.username");
    expect(message).not.toContain("s3cret");
  });
});
