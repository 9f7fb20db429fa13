import type { Stat } from "node-zookeeper-client";
import { childrenOf, readNode } from "../connection/zk-calls.js";
import type { ZooKeeperSession } from "../connection/zookeeper-session.js";
import { decodeHoldRecord, type HoldRecord } from "./hold-record.js";
import { type LockLayout, lockPath } from "./lock-layout.js";
import { sortLine, waitersBehind } from "./lock-paths.js";

/** The node first in a lock path's line, as read. */
export interface Holder {
  readonly path: string;
  readonly data: Buffer | undefined;
  readonly stat: Stat;
  /** Undefined for a node distlock did not write (Curator's). */
  readonly record: HoldRecord | undefined;
  /** Nodes in line behind it. */
  readonly waiters: number;
}

const ATTEMPTS = 5;

/** Reads who holds `key`'s lock path: the line, then the first node's data (again if that node went between the two reads). */
export async function readHolder(session: ZooKeeperSession, layout: LockLayout, key: string): Promise<Holder | undefined> {
  const { lockName } = layout;
  const linePath = lockPath(layout, key);
  for (let attempt = 1; ; attempt++) {
    const line = sortLine(await childrenOf(session, linePath), lockName);
    const first = line[0];
    if (first === undefined) return undefined;
    const path = `${linePath}/${first}`;
    const read = await readNode(session, path);
    if (read !== undefined) return { path, data: read.data, stat: read.stat, record: decodeHoldRecord(read.data), waiters: waitersBehind(line, lockName) };
    if (attempt >= ATTEMPTS) return undefined;
  }
}
