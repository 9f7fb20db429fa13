/** Curator's lock name: `InterProcessMutex` nodes are `_c_<uuid>-lock-<10-digit sequence>` (protected mode). */
export const LOCK_NAME = "lock-";

/** A key as one URI-encoded path segment ("." and ".." spelled out, as ZooKeeper refuses them). */
export function encodeSegment(name: string): string {
  const encoded = encodeURIComponent(name);
  return encoded === "." || encoded === ".." ? encoded.replaceAll(".", "%2E") : encoded;
}

/** The key a lock path's last segment names, or undefined for a segment this backend did not write. */
export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The prefix `create` gets for a node of ours: Curator's protected name, whose uuid finds the node again after a connection loss. */
export function protectedPrefix(uuid: string, lockName = LOCK_NAME): string {
  return `_c_${uuid}-${lockName}`;
}

/** What Curator sorts a line's nodes by: the text after the last lock name (the sequence), or the whole name without one. */
export function sortingSequence(name: string, lockName = LOCK_NAME): string {
  const index = name.lastIndexOf(lockName);
  return index < 0 ? name : name.slice(index + lockName.length);
}

/** The children of a lock path in Curator's order: the first holds the lock, each other waits for the one before it. */
export function sortLine(children: readonly string[], lockName = LOCK_NAME): string[] {
  return [...children].sort((a, b) => {
    const [x, y] = [sortingSequence(a, lockName), sortingSequence(b, lockName)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/**
 * Tags the node of an attempt (`tryAcquire`), which never waits: it either holds or leaves at once, so `inspect` does
 * not count it among the waiters. The tag sits after the uuid, where Curator neither sorts nor looks.
 */
export const ATTEMPT_TAG = "try";

/** How many of a sorted line's nodes after the first are waiters (all but attempts). */
export function waitersBehind(line: readonly string[], lockName = LOCK_NAME): number {
  return line.slice(1).filter((name) => !name.includes(`-${ATTEMPT_TAG}-${lockName}`)).length;
}
