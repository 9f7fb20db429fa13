import type { ServerCounter } from "../harness/index.js";
import type { RedisLockSubject } from "../redis/lock-subjects.js";
import { ServerCounters } from "../redis/server-counters.js";
import { redlockNodeUrls } from "./redlock-node-urls.js";

/** Command counters summed over the servers of a Redlock group, each read over a connection of its own. */
export class GroupCounters implements ServerCounter<RedisLockSubject> {
  readonly #nodes: readonly ServerCounters[];
  readonly readingCost = Object.freeze({ requests: 0 });

  constructor(url: string) {
    this.#nodes = redlockNodeUrls(url).map((node) => new ServerCounters(node));
  }

  /** `requests`: calls of the subject's client commands (INFO commandstats), summed over every server. */
  async read(subject: RedisLockSubject): Promise<Readonly<Record<string, number>>> {
    const calls = await Promise.all(this.#nodes.map((node) => node.calls(subject.clientCommands)));
    return { requests: calls.reduce((sum, count) => sum + count, 0) };
  }

  async close(): Promise<void> {
    await Promise.all(this.#nodes.map((node) => node.close()));
  }
}
