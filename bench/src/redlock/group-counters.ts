import type { ServerCounter } from "../harness/index.js";
import type { RedisLockSubject } from "../redis/lock-subjects.js";
import { ServerCounters } from "../redis/server-counters.js";
import { redlockNodeUrls } from "./redlock-node-urls.js";

/** What the counters' columns mean, for the notes under a table. */
export const GROUP_COUNTERS_NOTE =
  "- requests: calls of the subject's own client commands; server µs: the time the servers spent executing them (INFO commandstats `usec`, a script's time includes the calls it makes inside); both summed over all nodes";

/** Command counters summed over the servers of a Redlock group, each read over a connection of its own. */
export class GroupCounters implements ServerCounter<RedisLockSubject> {
  readonly #nodes: readonly ServerCounters[];
  readonly readingCost = Object.freeze({ requests: 0 });

  constructor(url: string) {
    this.#nodes = redlockNodeUrls(url).map((node) => new ServerCounters(node));
  }

  /** `requests`: calls of the subject's client commands, `server µs`: the time they took (INFO commandstats), summed over every server. */
  async read(subject: RedisLockSubject): Promise<Readonly<Record<string, number>>> {
    const stats = await Promise.all(this.#nodes.map((node) => node.commandStats(subject.clientCommands)));
    return { requests: stats.reduce((sum, node) => sum + node.calls, 0), "server µs": stats.reduce((sum, node) => sum + node.usec, 0) };
  }

  async close(): Promise<void> {
    await Promise.all(this.#nodes.map((node) => node.close()));
  }
}
