import { once } from "node:events";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";

/** Collects what a socket receives; `next(n)` resolves once n more bytes arrived. */
function reader(socket: Socket): { next: (bytes: number) => Promise<string> } {
  let buffered = "";
  let waiting: { bytes: number; resolve: (text: string) => void } | undefined;
  const flush = (): void => {
    if (waiting !== undefined && buffered.length >= waiting.bytes) {
      const text = buffered.slice(0, waiting.bytes);
      buffered = buffered.slice(waiting.bytes);
      const { resolve } = waiting;
      waiting = undefined;
      resolve(text);
    }
  };
  socket.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    flush();
  });
  return {
    next: (bytes) =>
      new Promise((resolve) => {
        waiting = { bytes, resolve };
        flush();
      }),
  };
}

/** Resolves with the error code the socket saw (if any) once it is closed. */
const closedWith = (socket: Socket): Promise<string | undefined> =>
  new Promise((resolve) => {
    let code: string | undefined;
    socket.on("error", (error: NodeJS.ErrnoException) => {
      code = error.code;
    });
    socket.once("close", () => resolve(code));
  });

const settlesWithin = (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe("TcpProxy", () => {
  let echo: Server;
  let proxy: TcpProxy;
  let clients: Socket[];

  const open = async (): Promise<{ socket: Socket; next: (bytes: number) => Promise<string> }> => {
    const socket = connect({ host: "127.0.0.1", port: proxy.port });
    socket.on("error", () => undefined);
    clients.push(socket);
    await once(socket, "connect");
    return { socket, ...reader(socket) };
  };

  beforeEach(async () => {
    clients = [];
    echo = createServer((socket) => {
      socket.on("error", () => undefined); // The proxy resets connections on purpose.
      socket.pipe(socket);
    });
    echo.listen({ host: "127.0.0.1", port: 0 });
    await once(echo, "listening");
    proxy = await startTcpProxy((echo.address() as AddressInfo).port);
  });

  afterEach(async () => {
    for (const client of clients) client.destroy();
    await proxy.close();
    await new Promise((resolve) => echo.close(resolve));
  });

  it("forwards bytes both ways", async () => {
    const { socket, next } = await open();
    socket.write("hello");
    expect(await next(5)).toBe("hello");
  });

  it("blackhole() holds bytes on open and new connections until restore()", async () => {
    const held = await open();
    proxy.blackhole();
    held.socket.write("ping");
    const heldReply = held.next(4);
    const fresh = await open();
    fresh.socket.write("new");
    const freshReply = fresh.next(3);
    expect(await settlesWithin(Promise.race([heldReply, freshReply]), 200)).toBe(false);
    proxy.restore();
    expect(await heldReply).toBe("ping");
    expect(await freshReply).toBe("new");
  });

  it("delay(ms) slows each direction and keeps byte order", async () => {
    const { socket, next } = await open();
    proxy.delay(100);
    const started = performance.now();
    socket.write("a");
    socket.write("b");
    expect(await next(2)).toBe("ab");
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    proxy.delay(0);
    const again = performance.now();
    socket.write("c");
    expect(await next(1)).toBe("c");
    expect(performance.now() - again).toBeLessThan(100);
  });

  it("dropConnections() resets open connections and keeps accepting", async () => {
    const { socket } = await open();
    const closed = closedWith(socket);
    proxy.dropConnections();
    expect(await closed).toBe("ECONNRESET");
    expect(proxy.connections).toBe(0);
    const { socket: next, next: read } = await open();
    next.write("ok");
    expect(await read(2)).toBe("ok");
  });

  it("resets the client when the target is down", async () => {
    await new Promise((resolve) => echo.close(resolve));
    echo = createServer(); // Replaced so afterEach can close something.
    echo.listen({ host: "127.0.0.1", port: 0 });
    const socket = connect({ host: "127.0.0.1", port: proxy.port });
    clients.push(socket);
    expect(await closedWith(socket)).toBe("ECONNRESET");
  });
});
