import { describe, expect, it } from "vitest";
import { ServerStartError } from "./server-start-error.js";

describe("ServerStartError", () => {
  it.each([
    ["redis", "# Warning: Could not create server TCP listening socket 127.0.0.1:34841: bind: Address already in use"],
    ["etcd", '{"level":"fatal","msg":"discovery failed","error":"listen tcp 127.0.0.1:34841: bind: address already in use"}'],
    ["postgres", 'LOG:  could not bind IPv4 address "127.0.0.1": Address already in use'],
    ["mariadb", "[ERROR] Can't start server: Bind on TCP/IP port. Got error: 98: Address already in use"],
  ])("recognises a taken port in %s's log", (_kind, line) => {
    expect(new ServerStartError("x:1", "exited", `starting\n${line}\n`).addressInUse).toBe(true);
  });

  it("does not take other start failures for a port collision", () => {
    const error = new ServerStartError("postgres:1", "exited (exit code 1)", 'FATAL:  data directory "/x" has invalid permissions');
    expect(error.addressInUse).toBe(false);
    expect(error.message).toContain("postgres:1 failed to start: exited (exit code 1)");
    expect(error.message).toContain("invalid permissions");
  });
});
