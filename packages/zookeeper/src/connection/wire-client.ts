import zookeeper, { type Client, type ZooKeeperException } from "node-zookeeper-client";
import type { Callback } from "./session-call.js";
import { addWatchRequest, type Created, childrenRequest, createRequest, deleteRequest, removeWatchesRequest, WireRequest } from "./wire-requests.js";

/** The slice of node-zookeeper-client's connection manager (`client.connectionManager`, not exported) used here. */
interface ConnectionManager {
  readonly state: number;
  readonly socket: { readonly destroyed: boolean; destroy(): void } | undefined;
  readonly pendingQueue: { readonly request: unknown }[];
  zxid: Buffer;
  /** The client's own watches, by path. */
  readonly watcherManager?: Record<"dataWatchers" | "childWatchers" | "existenceWatchers", Record<string, unknown>>;
  queue(request: unknown, callback: (error: ZooKeeperException | null) => void): void;
  onSocketData(chunk: Buffer): void;
}

/** `ConnectionManager.STATES.CONNECTING`: the next reply is the session's (the connect response). */
const CONNECTING = 1;
/** The xid of a frame that is a watch event, not a reply. */
const NOTIFICATION = -1;

/** A watch event: its type (`Watcher.Event.EventType`: 1 created, 2 deleted, 3 data changed, 4 children changed) and path. */
export type WatchListener = (type: number, path: string) => void;

/**
 * The requests of every grant and release (the create, the line read, the delete) sent on a client's own connection
 * without its request and reply records, which cost about half of the client's CPU time of an uncontended acquire
 * and release (see the README: what it uses of node-zookeeper-client beyond its API). They are encoded straight into
 * bytes and queued on the client's connection manager, which numbers, sends and keeps them in line with its own
 * requests; their replies are read off the socket here, in their turn, and every other frame (the client's own
 * replies, pings, watch events, the connect response) goes on to the client as it came. Watched reads stay with the
 * client, which registers their watches.
 */
export class WireClient {
  readonly #manager: ConnectionManager;
  /** Counts the connections read: a watch set on one is gone on the next (the client re-sets only its own). */
  #connection = 0;
  #listener: WatchListener | undefined;

  /** Takes over the reading of `client`'s socket data: before `client.connect()`, so that every socket is read here. */
  constructor(client: Client) {
    this.#manager = (client as unknown as { connectionManager: ConnectionManager }).connectionManager;
    this.#readReplies();
  }

  create(path: string, data: Buffer, mode: number, callback: Callback<Created>): void {
    this.#send(createRequest(path, data, mode, callback));
  }

  remove(path: string, version: number, callback: Callback<void>): void {
    this.#send(deleteRequest(path, version, callback));
  }

  getChildren(path: string, callback: Callback<string[]>): void {
    this.#send(childrenRequest(path, callback));
  }

  /** Sets a persistent recursive watch on this connection; its events go to the listener (and to the client where it watches too). */
  addWatch(path: string, callback: Callback<void>): void {
    this.#send(addWatchRequest(path, callback));
  }

  removeWatches(path: string, callback: Callback<void>): void {
    this.#send(removeWatchesRequest(path, callback));
  }

  /** Which connection the replies read now came on: it changes before the first frame of a new connection is read. */
  get connection(): number {
    return this.#connection;
  }

  /** Hears every watch event, in order with the replies (ZooKeeper sends an event before any reply that shows its change). */
  listen(listener: WatchListener): void {
    this.#listener = listener;
  }

  /**
   * The manager calls back only with the errors it makes itself (a lost connection, a closed or expired session): the
   * server's replies to these requests are read by `#readReplies`.
   */
  #send<T>(request: WireRequest<T>): void {
    this.#manager.queue(request, (error) => {
      if (error !== null) request.answer(error);
    });
  }

  /** Splits the socket's data into frames; a reply to the request first in line, if it is ours, is read here. */
  #readReplies(): void {
    const manager = this.#manager;
    const clientReads = manager.onSocketData;
    let socket = manager.socket;
    let rest: Buffer | undefined;
    manager.onSocketData = (chunk: Buffer): void => {
      if (manager.socket !== socket) {
        socket = manager.socket;
        rest = undefined;
        this.#connection += 1;
      }
      const bytes = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
      rest = undefined;
      let offset = 0;
      while (bytes.length - offset >= 4) {
        const size = bytes.readInt32BE(offset);
        const end = offset + 4 + size;
        if (size < 0) {
          manager.socket?.destroy();
          return;
        }
        if (end > bytes.length) break;
        if (this.#listener !== undefined && end - offset >= 32 && bytes.readInt32BE(offset + 4) === NOTIFICATION) {
          const path = this.#heard(bytes, offset, this.#listener);
          // The client would decode the event through its records only to find no watch of its own on the path.
          if (!this.#clientWatches(path)) {
            offset = end;
            continue;
          }
        }
        if (!this.#answer(bytes, offset, end)) clientReads.call(manager, offset === 0 && end === bytes.length ? bytes : bytes.subarray(offset, end));
        if (manager.socket?.destroyed === true) return;
        offset = end;
      }
      if (offset < bytes.length) rest = bytes.subarray(offset);
    };
  }

  /** A watch event's frame: the reply header (16 bytes), then type, state, path. */
  #heard(bytes: Buffer, offset: number, listener: WatchListener): string {
    const pathAt = offset + 4 + 16 + 8;
    const path = bytes.toString("utf8", pathAt + 4, pathAt + 4 + bytes.readInt32BE(pathAt));
    listener(bytes.readInt32BE(offset + 20), path);
    return path;
  }

  #clientWatches(path: string): boolean {
    const watches = this.#manager.watcherManager;
    if (watches === undefined) return true;
    return watches.dataWatchers[path] !== undefined || watches.childWatchers[path] !== undefined || watches.existenceWatchers[path] !== undefined;
  }

  /** Answers the request first in line from the frame at `offset` when the frame is its reply and the request is ours. */
  #answer(bytes: Buffer, offset: number, end: number): boolean {
    const manager = this.#manager;
    const first = manager.pendingQueue[0]?.request;
    if (manager.state === CONNECTING || !(first instanceof WireRequest) || end - offset < 20 || bytes.readInt32BE(offset + 4) !== first.header.xid)
      return false;
    manager.pendingQueue.shift();
    // As the client does with every reply: the last zxid seen, which a reconnect sends to the server.
    manager.zxid = Buffer.from(bytes.subarray(offset + 8, offset + 16));
    const err = bytes.readInt32BE(offset + 16);
    if (err === 0) first.answer(null, bytes, offset + 20);
    else first.answer(zookeeper.Exception.create(err));
    return true;
  }
}
