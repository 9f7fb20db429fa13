/** The slice of node-zookeeper-client (a CommonJS package without types) that this backend uses. */
declare module "node-zookeeper-client" {
  import type { EventEmitter } from "node:events";

  export interface Stat {
    /** 8 bytes, big-endian. */
    readonly czxid: Buffer;
    readonly mtime: Buffer;
    /** The zxid of the last change to this node's children. */
    readonly pzxid: Buffer;
    readonly version: number;
    readonly cversion: number;
    readonly numChildren: number;
    readonly ephemeralOwner: Buffer;
  }

  export interface ZooKeeperException extends Error {
    readonly code: number;
    getCode(): number;
  }

  export interface WatcherEvent {
    readonly type: number;
    readonly name: string;
    readonly path: string;
  }

  export type Watcher = (event: WatcherEvent) => void;

  export interface Client extends EventEmitter {
    connect(): void;
    close(): void;
    getSessionTimeout(): number;
    getSessionId(): Buffer;
    create(path: string, data: Buffer, mode: number, callback: (error: ZooKeeperException | null, path: string) => void): void;
    remove(path: string, version: number, callback: (error: ZooKeeperException | null) => void): void;
    setData(path: string, data: Buffer, version: number, callback: (error: ZooKeeperException | null, stat: Stat) => void): void;
    getData(path: string, callback: (error: ZooKeeperException | null, data: Buffer | undefined, stat: Stat) => void): void;
    exists(path: string, watcher: Watcher, callback: (error: ZooKeeperException | null, stat: Stat | null) => void): void;
    exists(path: string, callback: (error: ZooKeeperException | null, stat: Stat | null) => void): void;
    getChildren(path: string, callback: (error: ZooKeeperException | null, children: string[], stat: Stat) => void): void;
    getChildren(path: string, watcher: Watcher, callback: (error: ZooKeeperException | null, children: string[], stat: Stat) => void): void;
    mkdirp(path: string, callback: (error: ZooKeeperException | null, path: string) => void): void;
    transaction(): Transaction;
  }

  export interface Transaction {
    check(path: string, version: number): Transaction;
    commit(callback: (error: ZooKeeperException | null, results: unknown[]) => void): void;
  }

  export interface ClientOptions {
    sessionTimeout?: number;
    spinDelay?: number;
    retries?: number;
  }

  export function createClient(connectionString: string, options?: ClientOptions): Client;

  export const CreateMode: { readonly PERSISTENT: 0; readonly EPHEMERAL: 1; readonly PERSISTENT_SEQUENTIAL: 2; readonly EPHEMERAL_SEQUENTIAL: 3 };

  export const Exception: {
    readonly CONNECTION_LOSS: -4;
    readonly OPERATION_TIMEOUT: -7;
    readonly NO_NODE: -101;
    readonly BAD_VERSION: -103;
    readonly NODE_EXISTS: -110;
    readonly NOT_EMPTY: -111;
    readonly SESSION_EXPIRED: -112;
    /** The error the client gives for a server's error code. */
    create(code: number): ZooKeeperException;
  };

  const zookeeper: {
    createClient: typeof createClient;
    CreateMode: typeof CreateMode;
    Exception: typeof Exception;
  };
  export default zookeeper;
}
