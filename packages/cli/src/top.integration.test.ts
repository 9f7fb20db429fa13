import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLockProvider, type Lock, type LockProvider } from "@distlock/core";
import { type RedisServer, startRedis } from "@distlock/test-servers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DISTLOCK_BIN, runCli } from "./cli-process.test-support.js";
import { TmuxPane } from "./tmux-pane.test-support.js";

const COLUMNS = 160;
const ROWS = 30;
const TTL_MS = 60_000;

let redis: RedisServer;
const backends: Array<[string, () => string]> = [
  ["sqlite", () => `sqlite:${join(mkdtempSync(join(tmpdir(), "distlock-top-")), "locks.sqlite")}`],
  ["redis", () => redis.url],
];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.close();
});

/** The cells of the row of `key` on `screen` (KEY HOLDER TOKEN TTL COUNT WAITERS), or undefined when it has none. */
function rowOf(screen: string, key: string): string[] | undefined {
  return screen
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .find((cells) => cells[0] === key);
}

describe.each(backends)("distlock top on %s", (_, makeUrl) => {
  let url: string;
  const providers: LockProvider[] = [];
  let pane: TmuxPane | undefined;
  const provider = async (holderLabel: string) => {
    const created = await createLockProvider({ url, holderLabel });
    providers.push(created);
    return created;
  };

  beforeAll(() => {
    url = makeUrl();
  });
  afterEach(async () => {
    await pane?.close();
    pane = undefined;
    await Promise.allSettled(providers.splice(0).map((p) => p.close()));
  });

  it("shows the keys under the prefix with holder, token, count and waiters live, drops a released key, and quits on q with the terminal restored", async () => {
    const prefix = `top-${crypto.randomUUID().slice(0, 8)}:`;
    const [alpha, beta, waiter, outsider] = await Promise.all(["alpha", "beta", "waiter", "outsider"].map(provider));
    const owner = `secret-${crypto.randomUUID()}`;
    const a = await alpha?.acquire(`${prefix}a`, { ttlMs: TTL_MS, owner });
    const again = await alpha?.acquire(`${prefix}a`, { ttlMs: TTL_MS, owner });
    const b = await beta?.acquire(`${prefix}b`, { ttlMs: TTL_MS });
    await outsider?.acquire(`other-${prefix}c`, { ttlMs: TTL_MS });
    const giveUp = new AbortController();
    const waiting = waiter?.acquire(`${prefix}b`, { ttlMs: TTL_MS, signal: giveUp.signal }).catch(() => undefined);

    pane = await TmuxPane.open(COLUMNS, ROWS);
    await pane.start([process.execPath, DISTLOCK_BIN, "top", prefix, "--url", url, "--interval", "200ms"]);
    const screen = await pane.waitForScreen("both rows, b with its waiter", (text) => rowOf(text, `${prefix}b`)?.[5] === "1");
    const [a0, b0] = [a, b] as Lock[];
    expect(rowOf(screen, `${prefix}a`)).toEqual([`${prefix}a`, a0?.holder, String(a0?.fencingToken), expect.stringMatching(/^\d+\.\ds$/), "2", "0"]);
    expect(rowOf(screen, `${prefix}b`)).toEqual([`${prefix}b`, b0?.holder, String(b0?.fencingToken), expect.stringMatching(/^\d+\.\ds$/), "1", "1"]);
    expect(screen).toContain(`prefix "${prefix}"`);
    expect(screen).toContain("2 keys");
    expect(screen).not.toContain(`other-${prefix}c`);
    expect(screen).not.toContain(owner);

    await again?.release();
    await a?.release();
    await pane.waitForScreen(`the row of ${prefix}a gone`, (text) => rowOf(text, `${prefix}a`) === undefined && text.includes("1 key"));
    giveUp.abort();
    await waiting;

    await pane.press("q");
    const exit = await pane.exited();
    expect(exit).toEqual({ status: 0, alternateScreenLeft: true, cursorVisible: true });
    expect(await pane.screen()).not.toContain("distlock top");
  });

  it("says so when nothing is held under the prefix, and exits 0 on Ctrl-C", async () => {
    pane = await TmuxPane.open(COLUMNS, ROWS);
    const empty = `top-empty-${crypto.randomUUID().slice(0, 8)}:`;
    await pane.start([process.execPath, DISTLOCK_BIN, "top", empty, "--url", url]);
    await pane.waitForScreen("the empty-prefix message", (text) => text.includes(`No lock is held under "${empty}".`));
    await pane.press("C-c");
    expect(await pane.exited()).toEqual({ status: 0, alternateScreenLeft: true, cursorVisible: true });
  });

  it("exits 0 on SIGTERM with the terminal restored", async () => {
    pane = await TmuxPane.open(COLUMNS, ROWS);
    await pane.start([process.execPath, DISTLOCK_BIN, "top", "--url", url]);
    await pane.waitForScreen("the header", (text) => text.includes("distlock top  backend"));
    process.kill(await pane.programPid(), "SIGTERM");
    expect(await pane.exited()).toEqual({ status: 0, alternateScreenLeft: true, cursorVisible: true });
  });

  it("prints one snapshot and exits 0 when stdout is not a terminal", async () => {
    const key = `top-once-${crypto.randomUUID()}`;
    const lock = await (await provider("once")).acquire(key, { ttlMs: TTL_MS });
    const result = await runCli(["top", key, "--url", url, "--json"]);
    expect(result.code).toBe(0);
    const snapshot = JSON.parse(result.stdout);
    expect(snapshot.locks).toEqual([expect.objectContaining({ key, holder: lock.holder, fencingToken: String(lock.fencingToken), waiters: 0 })]);
  });
});

describe("distlock top flags", () => {
  it.each([
    ["--limit 0", ["--limit", "0"], "--limit"],
    ["--limit 1.5", ["--limit", "1.5"], "--limit"],
    ["--interval 10ms", ["--interval", "10ms"], "--interval"],
    ["--interval soon", ["--interval", "soon"], "--interval"],
    ["--interval 120m", ["--interval", "120m"], "--interval"],
    ["two prefixes", ["a", "b"], "at most one PREFIX"],
  ])("rejects %s as a usage error (64) before connecting", async (_, args, message) => {
    const result = await runCli(["top", ...args, "--url", "redis://127.0.0.1:1"]);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(message);
  });

  it("shows an unreachable backend's error on the screen instead of crashing, and still quits with 0", async () => {
    const pane = await TmuxPane.open(COLUMNS, ROWS);
    try {
      await pane.start([process.execPath, DISTLOCK_BIN, "top", "--url", "redis://127.0.0.1:1?commandTimeoutMs=200", "--interval", "200ms"]);
      await pane.waitForScreen("the backend error", (text) => text.includes("error: BACKEND_UNAVAILABLE"));
      await pane.press("q");
      expect(await pane.exited()).toEqual({ status: 0, alternateScreenLeft: true, cursorVisible: true });
    } finally {
      await pane.close();
    }
  });
});
