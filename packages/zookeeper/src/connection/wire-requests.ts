import type { ZooKeeperException } from "node-zookeeper-client";
import type { Callback } from "./session-call.js";

/** The request types encoded here (ZooKeeper's `ZooDefs.OpCode`). */
const OP = Object.freeze({ delete: 2, getChildren: 8, create2: 15, removeWatches: 18, addWatch: 106 });

/** Writes a request's fields in jute's encoding into a buffer sized up front: length, xid (set at sending), type, body. */
class RequestWriter {
  readonly bytes: Buffer;
  #offset = 12;

  constructor(type: number, bodyLength: number) {
    this.bytes = Buffer.allocUnsafe(12 + bodyLength);
    this.bytes.writeInt32BE(8 + bodyLength, 0);
    this.bytes.writeInt32BE(type, 8);
  }

  int(value: number): this {
    this.#offset = this.bytes.writeInt32BE(value, this.#offset);
    return this;
  }

  string(value: string, byteLength: number): this {
    this.int(byteLength);
    this.#offset += this.bytes.write(value, this.#offset, "utf8");
    return this;
  }

  flag(value: boolean): this {
    this.#offset = this.bytes.writeUInt8(value ? 1 : 0, this.#offset);
    return this;
  }

  raw(value: Buffer): this {
    this.#offset += value.copy(this.bytes, this.#offset);
    return this;
  }
}

/** World-readable and writable, as `ACL.OPEN_ACL_UNSAFE`: one ACL, all permissions (31), scheme "world", id "anyone". */
const OPEN_ACL_UNSAFE = aclBytes(31, "world", "anyone");

/** Reads a reply's body (after the reply header, at `offset`). */
type Decode<T> = (reply: Buffer, offset: number) => T;

/**
 * A request in the shape node-zookeeper-client's connection manager queues: it sets `header.xid` when it sends, writes
 * `toBuffer()`, and keeps the request in line for its reply, which `WireClient` reads and hands to `answer`.
 */
export class WireRequest<T = unknown> {
  readonly header: { readonly type: number; xid: number };
  /** Nothing for the manager to prefix with a chroot: the sessions' connect strings have none, paths come whole. */
  readonly payload = null;
  readonly #bytes: Buffer;
  readonly #decode: Decode<T>;
  readonly #callback: Callback<T>;

  constructor(type: number, bytes: Buffer, decode: Decode<T>, callback: Callback<T>) {
    this.header = { type, xid: 0 };
    this.#bytes = bytes;
    this.#decode = decode;
    this.#callback = callback;
  }

  toBuffer(): Buffer {
    this.#bytes.writeInt32BE(this.header.xid, 4);
    return this.#bytes;
  }

  /** The server's reply (its body at `offset`), or the error it answered with or the manager gave up with. */
  answer(error: ZooKeeperException | null, reply?: Buffer, offset = 0): void {
    if (error !== null || reply === undefined) this.#callback(error, undefined);
    else this.#callback(null, this.#decode(reply, offset));
  }
}

/** A created node: its path, and its `czxid` (8 bytes, big-endian: the zxid of the create). */
export interface Created {
  readonly path: string;
  readonly czxid: Buffer;
}

/** A create (`create2`: the reply carries the new node's stat). */
export function createRequest(path: string, data: Buffer, mode: number, callback: Callback<Created>): WireRequest<Created> {
  const pathLength = Buffer.byteLength(path);
  const writer = new RequestWriter(OP.create2, 4 + pathLength + 4 + data.length + OPEN_ACL_UNSAFE.length + 4);
  const bytes = writer.string(path, pathLength).int(data.length).raw(data).raw(OPEN_ACL_UNSAFE).int(mode).bytes;
  return new WireRequest(OP.create2, bytes, readCreated, callback);
}

/** A delete, if the node's version matches (-1: any). */
export function deleteRequest(path: string, version: number, callback: Callback<void>): WireRequest<void> {
  return pathAndIntRequest(OP.delete, path, version, callback);
}

/** A read of a node's children (`getChildren`), without a watch. */
export function childrenRequest(path: string, callback: Callback<string[]>): WireRequest<string[]> {
  const pathLength = Buffer.byteLength(path);
  const bytes = new RequestWriter(OP.getChildren, 4 + pathLength + 1).string(path, pathLength).flag(false).bytes;
  return new WireRequest(OP.getChildren, bytes, readChildren, callback);
}

/** `AddWatchMode.PERSISTENT_RECURSIVE`: the watch stays after it fires, and hears the node and every node below it. */
const PERSISTENT_RECURSIVE = 1;
/** `WatcherType.Any`: every watch this connection has on the path, persistent ones included. */
const ANY_WATCH = 3;

/** A persistent recursive watch on `path` (ZooKeeper 3.6 and later), which can be set before the node exists. */
export function addWatchRequest(path: string, callback: Callback<void>): WireRequest<void> {
  return pathAndIntRequest(OP.addWatch, path, PERSISTENT_RECURSIVE, callback);
}

/** Takes every watch of this connection off `path`. */
export function removeWatchesRequest(path: string, callback: Callback<void>): WireRequest<void> {
  return pathAndIntRequest(OP.removeWatches, path, ANY_WATCH, callback);
}

/** A request whose body is a path and an int, answered with nothing but success or an error. */
function pathAndIntRequest(type: number, path: string, value: number, callback: Callback<void>): WireRequest<void> {
  const pathLength = Buffer.byteLength(path);
  const bytes = new RequestWriter(type, 4 + pathLength + 4).string(path, pathLength).int(value).bytes;
  return new WireRequest<void>(type, bytes, () => undefined, callback);
}

function readChildren(reply: Buffer, offset: number): string[] {
  const count = reply.readInt32BE(offset);
  const children: string[] = [];
  let at = offset + 4;
  for (let i = 0; i < count; i++) {
    const length = reply.readInt32BE(at);
    children.push(reply.toString("utf8", at + 4, at + 4 + length));
    at += 4 + length;
  }
  return children;
}

/** A `create2` reply: the path, then the node's jute `Stat`, whose first field is `czxid`. */
function readCreated(reply: Buffer, offset: number): Created {
  const statAt = offset + 4 + reply.readInt32BE(offset);
  return { path: readString(reply, offset), czxid: Buffer.from(reply.subarray(statAt, statAt + 8)) };
}

function readString(reply: Buffer, offset: number): string {
  return reply.toString("utf8", offset + 4, offset + 4 + reply.readInt32BE(offset));
}

function aclBytes(perms: number, scheme: string, id: string): Buffer {
  const writer = new RequestWriter(0, 4 + 4 + 4 + scheme.length + 4 + id.length);
  return writer.int(1).int(perms).string(scheme, scheme.length).string(id, id.length).bytes.subarray(12);
}
