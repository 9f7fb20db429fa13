import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allocatePorts, releasePorts } from "./ports.js";

const claimOf = (port: number) => join(tmpdir(), "distlock-test-ports", String(port));

describe("ports for test servers", () => {
  it("claims each port handed out for this process, across processes, until it is released", async () => {
    const ports = await allocatePorts(3, 10_000);
    for (const port of ports) expect(readFileSync(claimOf(port), "utf8")).toBe(String(process.pid));
    for (const port of ports) expect(readFileSync(claimOf(port + 10_000), "utf8")).toBe(String(process.pid));
    releasePorts(ports.flatMap((port) => [port, port + 10_000]));
    for (const port of ports) expect(existsSync(claimOf(port))).toBe(false);
  });
});
