import { randomInt } from "node:crypto";
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestServerError } from "../errors/test-server-error.js";
import { isProcessGone } from "./process-tree.js";

/**
 * Ports are drawn at random from below Linux's ephemeral range (32768+), so outgoing connections
 * never hold them, and far from the default ports of local services (2379, 3306, 5432, 6379).
 * The top is 22767 so a Redis Cluster bus port (port + 10000) stays below the ephemeral range too.
 */
const LOWEST_PORT = 15000;
const HIGHEST_PORT = 22767;
const MAX_TRIES = 200;

/** Ports handed out by this process and not yet released. */
const handedOut = new Set<number>();

/**
 * Claims across test processes: a file per port handed out, holding the claiming pid. The bind check alone cannot see a
 * port whose server another process killed to start it again on the same port (a fault test): the port is free
 * meanwhile, and a server of a third process could take it.
 */
const CLAIMS = join(tmpdir(), "distlock-test-ports");

function claim(port: number): boolean {
  const file = join(CLAIMS, String(port));
  mkdirSync(CLAIMS, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(readFileSync(file, "utf8"));
      // A claim of a process that died without releasing it (SIGKILL) is taken over.
      if (!(owner > 0) || !isProcessGone(owner)) return false;
      unclaim(port);
    }
  }
  return false;
}

function unclaim(port: number): void {
  try {
    unlinkSync(join(CLAIMS, String(port)));
  } catch {
    // Already gone.
  }
}

process.once("exit", () => {
  for (const port of handedOut) unclaim(port);
});

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Picks `count` free TCP ports on 127.0.0.1. With `companionOffset`, `port + companionOffset`
 * must be free as well and is reserved with it (Redis Cluster's bus port).
 */
export async function allocatePorts(count: number, companionOffset?: number): Promise<number[]> {
  const ports: number[] = [];
  for (let tries = 0; ports.length < count; tries++) {
    if (tries >= MAX_TRIES) {
      throw new TestServerError(`No free ports between ${LOWEST_PORT} and ${HIGHEST_PORT} on 127.0.0.1.`);
    }
    const port = randomInt(LOWEST_PORT, HIGHEST_PORT + 1);
    const group = companionOffset === undefined ? [port] : [port, port + companionOffset];
    if (group.some((candidate) => handedOut.has(candidate))) continue;
    const claimed = group.filter(claim);
    if (claimed.length < group.length) {
      for (const candidate of claimed) unclaim(candidate);
      continue;
    }
    for (const candidate of group) handedOut.add(candidate);
    const free = await Promise.all(group.map(canBind));
    if (free.every(Boolean)) {
      ports.push(port);
    } else releasePorts(group);
  }
  return ports;
}

/** Returns ports (and their companions) to the pool once their server is closed. */
export function releasePorts(ports: readonly number[]): void {
  for (const port of ports) {
    handedOut.delete(port);
    unclaim(port);
  }
}
