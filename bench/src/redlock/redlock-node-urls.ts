/** `redis://host:port` of every master in a `redlock://h1:p1,h2:p2` URL. */
export function redlockNodeUrls(url: string): string[] {
  return url
    .replace(/^redlock:\/\//, "")
    .split(",")
    .map((hostPort) => `redis://${hostPort}`);
}
