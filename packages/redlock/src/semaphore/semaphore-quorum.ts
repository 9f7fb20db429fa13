import { MAX_READERS } from "@distlock/core";
import { READ_WRITE_NAME_PREFIX } from "@distlock/core/internal";

/**
 * How many of `nodes` nodes must hold a grant of a semaphore of `permits` permits (see "Semaphores" in the README for
 * the proof): ⌊nodes·permits/(permits+1)⌋ + 1, so that permits+1 grants, each refused by a node it would put over
 * `permits`, cannot all be placed. Written as nodes − ⌈nodes/(permits+1)⌉ + 1 to stay exact for any count: a majority
 * for one permit, every node once permits ≥ nodes − 1.
 */
export function countingQuorum(nodes: number, permits: number): number {
  return nodes - Math.ceil(nodes / (permits + 1)) + 1;
}

/**
 * The quorum of semaphore `name`: a majority for a read-write lock's (readers take 1 permit and a writer all of them,
 * so any two grants that do not fit together include the writer, and two majorities share a node that refuses the
 * second), else the counting quorum.
 */
export function semaphoreQuorum(nodes: number, name: string, permits: number): number {
  const readWrite = permits === MAX_READERS && name.startsWith(READ_WRITE_NAME_PREFIX);
  return readWrite ? Math.floor(nodes / 2) + 1 : countingQuorum(nodes, permits);
}
