import { createRedlockNodes } from "./connection/create-redlock-nodes.js";
import type { ResolvedRedlockLockOptions } from "./options/redlock-lock-provider-options.js";
import { NodeSet } from "./quorum/node-set.js";
import { RedlockLockDriver } from "./redlock-lock-driver.js";

/** The driver over the caller's clients, or over connections to the URL's hosts that connect lazily in the background. */
export function createRedlockLockDriver(options: ResolvedRedlockLockOptions): RedlockLockDriver {
  return new RedlockLockDriver({ nodes: new NodeSet(createRedlockNodes(options)), settings: options });
}
