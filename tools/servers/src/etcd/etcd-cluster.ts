import { randomUUID } from "node:crypto";
import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { allocatePorts } from "../process/ports.js";
import { killAndClose, pollFor, retryOnAddressInUse, startTogether } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { DEFAULT_ETCD_OPTIONS, type EtcdOptions } from "./etcd-options.js";
import { type EtcdMemberStatus, EtcdServer } from "./etcd-server.js";

/** A static etcd cluster (`--initial-cluster`) on 127.0.0.1. */
export class EtcdCluster implements AsyncDisposable {
  readonly members: readonly EtcdServer[];
  /** Client URLs of all members, the form the etcd3 client takes. */
  readonly endpoints: readonly string[];
  /** `etcd://127.0.0.1:<p1>,127.0.0.1:<p2>,...` */
  readonly url: string;

  constructor(members: readonly EtcdServer[]) {
    this.members = Object.freeze([...members]);
    this.endpoints = Object.freeze(members.map((member) => member.endpoint));
    this.url = `etcd://${members.map((member) => `${member.host}:${member.port}`).join(",")}`;
  }

  /**
   * The member that is leader now: asks every running, unpaused member and picks the one that
   * names itself leader in the highest term. Waits (up to `timeoutMs`) while an election runs.
   */
  leader(timeoutMs = 10_000): Promise<EtcdServer> {
    return pollFor(() => this.#leaderNow(), timeoutMs, `No etcd member claims leadership after ${timeoutMs} ms; is a quorum running?`);
  }

  async #leaderNow(): Promise<EtcdServer | undefined> {
    const live = this.members.filter((member) => member.running && !member.paused);
    const statuses = await Promise.all(live.map((member) => member.status().catch((): EtcdMemberStatus | undefined => undefined)));
    let leader: EtcdServer | undefined;
    let term = -1;
    statuses.forEach((status, i) => {
      if (status !== undefined && status.memberId === status.leaderId && status.raftTerm > term) {
        leader = live[i];
        term = status.raftTerm;
      }
    });
    return leader;
  }

  /** Kills every member and removes their data dirs (see `killAndClose`). */
  close(): Promise<void> {
    return killAndClose(this.members);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Starts a `size`-member etcd cluster and waits until every member is healthy. */
export async function startEtcdCluster(size = 3, options: EtcdOptions = {}): Promise<EtcdCluster> {
  if (!Number.isInteger(size) || size < 1) {
    throw new TestServerError(`startEtcdCluster(size) needs a positive integer size; got ${size}.`);
  }
  if (options.tls === true) throw new TestServerError("startEtcdCluster does not serve TLS; use startEtcd({ tls: true }) for a TLS member.");
  const settings = { ...DEFAULT_ETCD_OPTIONS, ...options };
  const command = binaryPath(await ensureServerBinaries(["etcd"]), "etcd");
  return retryOnAddressInUse(async () => {
    const ports = await allocatePorts(2 * size);
    const names = Array.from({ length: size }, (_, i) => `m${i}`);
    const initialCluster = names.map((name, i) => `${name}=http://127.0.0.1:${ports[2 * i + 1]}`).join(",");
    const clusterToken = `distlock-${randomUUID()}`;
    const members: EtcdServer[] = [];
    for (const [i, memberName] of names.entries()) {
      members.push(
        new EtcdServer({
          memberName,
          clientPort: ports[2 * i] as number,
          peerPort: ports[2 * i + 1] as number,
          dataDir: await createTempDir("etcd"),
          initialCluster,
          clusterToken,
          command,
          settings,
        }),
      );
    }
    const cluster = new EtcdCluster(members);
    try {
      await startTogether(members);
      return cluster;
    } catch (error) {
      await cluster.close().catch(() => undefined);
      throw error;
    }
  });
}
