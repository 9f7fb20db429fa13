/** A ZooKeeper call got no answer within `commandTimeoutMs`. */
export class CommandTimeoutError extends Error {
  override readonly name = "CommandTimeoutError";

  constructor(operation: string, timeoutMs: number) {
    super(`ZooKeeper ${operation} got no answer within ${timeoutMs} ms (commandTimeoutMs)`);
  }
}
