import type { ZooKeeperException } from "node-zookeeper-client";

/** ZooKeeper error codes this backend acts on (the server's `KeeperException.Code`). */
export const ZK_ERROR = Object.freeze({
  connectionLoss: -4,
  unimplemented: -6,
  noNode: -101,
  badVersion: -103,
  nodeExists: -110,
  notEmpty: -111,
  sessionExpired: -112,
});

/** The code of a ZooKeeper error, or undefined for anything else. */
export function zkErrorCode(error: unknown): number | undefined {
  const code = (error as Partial<ZooKeeperException> | null)?.code;
  return typeof code === "number" ? code : undefined;
}

/** True for an error the server itself answered with (the request reached it), false for one the client made up. */
export function isServerAnswer(error: unknown): boolean {
  const code = zkErrorCode(error);
  return code !== undefined && code <= -100 && code !== ZK_ERROR.sessionExpired;
}

/** True when `error` is the ZooKeeper error `code`. */
export function isZkError(error: unknown, code: number): boolean {
  return zkErrorCode(error) === code;
}
