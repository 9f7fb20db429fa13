import { binaryPath, ensureServerBinaries } from "../binaries/ensure-server-binaries.js";
import { TestServerError } from "../errors/test-server-error.js";
import { allocatePorts } from "../process/ports.js";
import { killAndClose, pollFor, retryOnAddressInUse, startTogether } from "../process/settle.js";
import { createTempDir } from "../process/temp-dir.js";
import { DEFAULT_ZOOKEEPER_OPTIONS, type ZooKeeperOptions } from "./zookeeper-options.js";
import { type ZooKeeperPeer, ZooKeeperServer } from "./zookeeper-server.js";

/** A static ZooKeeper ensemble on 127.0.0.1, each member with its own client, quorum and election ports. */
export class ZooKeeperEnsemble implements AsyncDisposable {
  readonly members: readonly ZooKeeperServer[];
  /** `127.0.0.1:<p1>,127.0.0.1:<p2>,…`, the connection string of the whole ensemble. */
  readonly connectString: string;
  /** `zookeeper://127.0.0.1:<p1>,127.0.0.1:<p2>,…` */
  readonly url: string;

  constructor(members: readonly ZooKeeperServer[]) {
    this.members = Object.freeze([...members]);
    this.connectString = members.map((member) => member.connectString).join(",");
    this.url = `zookeeper://${this.connectString}`;
  }

  /** The member that reports itself leader now; waits (up to `timeoutMs`) while an election runs. */
  leader(timeoutMs = 10_000): Promise<ZooKeeperServer> {
    return pollFor(
      async () => {
        const live = this.members.filter((member) => member.running && !member.paused);
        const modes = await Promise.all(live.map((member) => member.mode().catch(() => undefined)));
        return live[modes.indexOf("leader")];
      },
      timeoutMs,
      `No ZooKeeper member reports leader after ${timeoutMs} ms; is a quorum running?`,
    );
  }

  /** Kills every member and removes their data dirs (see `killAndClose`). */
  close(): Promise<void> {
    return killAndClose(this.members);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Starts a `size`-member ensemble and waits until every member serves (has joined the quorum). */
export async function startZooKeeperEnsemble(size = 3, options: ZooKeeperOptions = {}): Promise<ZooKeeperEnsemble> {
  if (!Number.isInteger(size) || size < 1) throw new TestServerError(`startZooKeeperEnsemble(size) needs a positive integer size; got ${size}.`);
  const settings = { ...DEFAULT_ZOOKEEPER_OPTIONS, ...options };
  const java = binaryPath(await ensureServerBinaries(["zookeeper"]), "java");
  return retryOnAddressInUse(async () => {
    const ports = await allocatePorts(3 * size);
    const peers: ZooKeeperPeer[] = Array.from({ length: size }, (_, i) => ({
      id: i + 1,
      quorumPort: ports[3 * i + 1] as number,
      electionPort: ports[3 * i + 2] as number,
    }));
    const members: ZooKeeperServer[] = [];
    for (const [i, self] of peers.entries()) {
      const dataDir = await createTempDir("zookeeper");
      members.push(new ZooKeeperServer({ clientPort: ports[3 * i] as number, dataDir, java, settings, ensemble: { self, peers } }));
    }
    const ensemble = new ZooKeeperEnsemble(members);
    try {
      await startTogether(members);
      return ensemble;
    } catch (error) {
      await ensemble.close().catch(() => undefined);
      throw error;
    }
  });
}
