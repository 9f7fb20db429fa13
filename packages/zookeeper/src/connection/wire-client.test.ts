import zookeeper, { type Client, type ZooKeeperException } from "node-zookeeper-client";
import { describe, expect, it, vi } from "vitest";
import { WireClient } from "./wire-client.js";

/** node-zookeeper-client's connection manager, as its `queue` and `onSocketData` use it. */
interface Manager {
  state: number;
  socket: { write(bytes: Buffer): boolean; destroyed: boolean; destroy(): void };
  zxid: Buffer;
  onSocketData(bytes: Buffer): void;
}

/** A client that never connects: its manager is put in the connected state and its socket writes into `written`. */
function offlineClient(): { client: Client; wire: WireClient; manager: Manager; written: Buffer[] } {
  const client = zookeeper.createClient("127.0.0.1:1");
  const wire = new WireClient(client);
  const manager = (client as unknown as { connectionManager: Manager }).connectionManager;
  const written: Buffer[] = [];
  manager.state = 2; // ConnectionManager.STATES.CONNECTED
  manager.socket = { write: (bytes) => written.push(bytes) > 0, destroyed: false, destroy: () => undefined };
  return { client, wire, manager, written };
}

/** The bytes after the xid, with the length: the xid differs only by the request's place in the session. */
function withoutXid(bytes: Buffer | undefined): string {
  if (bytes === undefined) throw new Error("nothing was written");
  return `${bytes.readInt32BE(0)}:${bytes.subarray(8).toString("hex")}`;
}

/** The request's type (`ZooDefs.OpCode`). */
function opCode(bytes: Buffer | undefined): number | undefined {
  return bytes?.readInt32BE(8);
}

/** The bytes as `withoutXid` shows them, with the type replaced by `type`. */
function asType(bytes: Buffer | undefined, type: number): string {
  if (bytes === undefined) throw new Error("nothing was written");
  const copy = Buffer.from(bytes);
  copy.writeInt32BE(type, 8);
  return withoutXid(copy);
}

/** The server's reply to request `xid`: the reply header (zxid `zxid`, error `err`) and `body`. */
function reply(xid: number, body: Buffer, err = 0, zxid = 7n): Buffer {
  const bytes = Buffer.alloc(20 + body.length);
  bytes.writeInt32BE(16 + body.length, 0);
  bytes.writeInt32BE(xid, 4);
  bytes.writeBigInt64BE(zxid, 8);
  bytes.writeInt32BE(err, 16);
  body.copy(bytes, 20);
  return bytes;
}

function ustring(text: string): Buffer {
  const bytes = Buffer.from(text);
  const length = Buffer.alloc(4);
  length.writeInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A jute `Stat` (68 bytes) whose czxid, the first field, is `czxid`, and whose other fields are all ones. */
function stat(czxid: bigint): Buffer {
  const bytes = Buffer.alloc(68, 0xff);
  bytes.writeBigInt64BE(czxid, 0);
  return bytes;
}

describe("WireClient: requests on node-zookeeper-client's connection without its records", () => {
  it("writes the bytes of the client's own create, getChildren and remove as create2, getChildren (no stat) and remove, numbered in one sequence with them", () => {
    const { client, wire, written } = offlineClient();
    const data = Buffer.from('{"distlock":1,"holder":"ünï"}');
    client.create("/distlock/locks/k/_c_1-lock-", data, zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, () => undefined);
    wire.create("/distlock/locks/k/_c_1-lock-", data, zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, () => undefined);
    client.getChildren("/distlock/locks/ä", () => undefined);
    wire.getChildren("/distlock/locks/ä", () => undefined);
    client.remove("/distlock/locks/k/_c_1-lock-0000000001", 3, () => undefined);
    wire.remove("/distlock/locks/k/_c_1-lock-0000000001", 3, () => undefined);
    expect(written).toHaveLength(6);
    // The client sends create (1) and getChildren2 (12); create2 (15) and getChildren (8) take the same request body.
    expect(written.map(opCode)).toEqual([1, 15, 12, 8, 2, 2]);
    expect(withoutXid(written[1])).toBe(asType(written[0], 15));
    expect(withoutXid(written[3])).toBe(asType(written[2], 8));
    expect(withoutXid(written[5])).toBe(withoutXid(written[4]));
    expect(written.map((bytes) => bytes.readInt32BE(4))).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("reads its replies in line with the client's own, split anywhere across socket reads, and keeps the last zxid", () => {
    const { client, wire, manager } = offlineClient();
    const answers: unknown[] = [];
    wire.listen((type, path) => answers.push(`event ${type} ${path}`));
    wire.create("/l/_c_1-lock-", Buffer.alloc(0), 3, (error, created) =>
      answers.push(error ?? { path: created?.path, czxid: created?.czxid.readBigInt64BE() }),
    );
    client.exists("/l", (error, found) => answers.push(error ?? `exists ${found?.version}`));
    wire.getChildren("/l", (error, children) => answers.push(error ?? children));
    wire.remove("/l/_c_1-lock-0000000001", 0, (error) => answers.push(error ?? "deleted"));
    wire.remove("/l/_c_1-lock-0000000001", 0, (error) => answers.push((error as ZooKeeperException).code));
    const replies = Buffer.concat([
      reply(0, Buffer.concat([ustring("/l/_c_1-lock-0000000001"), stat(41n)])),
      reply(-1, Buffer.concat([Buffer.from([0, 0, 0, 4, 0, 0, 0, 3]), ustring("/l")])), // a watch event between replies
      reply(1, stat(0n)),
      reply(2, Buffer.concat([Buffer.from([0, 0, 0, 2]), ustring("_c_1-lock-0000000001"), ustring("_c_2-lock-0000000002")])),
      reply(3, Buffer.alloc(0)),
      reply(4, Buffer.alloc(0), -101, 9n),
    ]);
    for (let at = 0; at < replies.length; at += 7) manager.onSocketData(replies.subarray(at, at + 7));
    expect(answers).toEqual([
      { path: "/l/_c_1-lock-0000000001", czxid: 41n },
      "event 4 /l",
      "exists -1",
      ["_c_1-lock-0000000001", "_c_2-lock-0000000002"],
      "deleted",
      -101,
    ]);
    expect(manager.zxid.readBigInt64BE()).toBe(9n);
  });

  it("hands a watch event to the client only when the client watches its path, and every event to the listener", () => {
    const { client, wire, manager } = offlineClient();
    const heard: unknown[] = [];
    wire.listen((type, path) => heard.push(`listener ${type} ${path}`));
    client.exists(
      "/l/a",
      (event) => heard.push(`client ${event.name} ${event.path}`),
      () => undefined,
    );
    const decoded = vi.spyOn(
      (client as unknown as { connectionManager: { watcherManager: { emit(event: unknown): void } } }).connectionManager.watcherManager,
      "emit",
    );
    const deleted = (path: string) => reply(-1, Buffer.concat([Buffer.from([0, 0, 0, 2, 0, 0, 0, 3]), ustring(path)]), 0, -1n);
    manager.onSocketData(Buffer.concat([reply(0, stat(5n)), deleted("/l/b"), deleted("/l/a")]));
    expect(heard).toEqual(["listener 2 /l/b", "listener 2 /l/a", "client NODE_DELETED /l/a"]);
    expect(decoded).toHaveBeenCalledOnce();
  });

  it("answers at once with the client's own error when the client is closed", () => {
    const { wire, manager } = offlineClient();
    manager.state = -2; // ConnectionManager.STATES.CLOSED
    const answers: unknown[] = [];
    wire.getChildren("/l", (error, read) => answers.push([(error as ZooKeeperException).code, read]));
    expect(answers).toEqual([[-4, undefined]]);
  });
});
