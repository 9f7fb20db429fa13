import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isGone } from "./is-gone.test-helper.js";

const SERVERS = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

/** A process that starts a redis-server through the harness, prints its pid and data dir, and waits to be killed. */
const HOLDER = `
const { startRedis } = await import(${JSON.stringify(SERVERS)});
const server = await startRedis();
console.log(JSON.stringify({ pid: server.pid, dataDir: server.dataDir }));
setInterval(() => {}, 60_000);
`;

describe("the harness's clean-up of a test process that dies without running exit handlers", () => {
  it("kills its servers and removes their data dirs when the test process is SIGKILLed", { timeout: 30_000 }, async () => {
    const holder = spawn(process.execPath, ["--input-type=module", "-e", HOLDER], { stdio: ["ignore", "pipe", "inherit"] });
    const [line] = (await once(holder.stdout, "data")) as [Buffer];
    const { pid, dataDir } = JSON.parse(line.toString()) as { pid: number; dataDir: string };
    expect(isGone(pid)).toBe(false);
    expect(existsSync(dataDir)).toBe(true);
    holder.kill("SIGKILL");
    await once(holder, "exit");
    const deadline = performance.now() + 10_000;
    while ((!isGone(pid) || existsSync(dataDir)) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isGone(pid)).toBe(true);
    expect(existsSync(dataDir)).toBe(false);
  });
});
