import { Redis } from "ioredis";

/** `redis://host:port` of every master in a `redlock://h1:p1,h2:p2` URL. */
export function redlockNodeUrls(url: string): string[] {
  return url
    .replace(/^redlock:\/\//, "")
    .split(",")
    .map((hostPort) => `redis://${hostPort}`);
}

/** One ioredis client per master of a `redlock://h1:p1,h2:p2` URL. */
export function redlockNodeClients(url: string): Redis[] {
  return redlockNodeUrls(url).map((node) => new Redis(node).on("error", () => undefined));
}
