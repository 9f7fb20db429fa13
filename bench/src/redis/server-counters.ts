import { Redis } from "ioredis";
import type { ServerCounter } from "../harness/index.js";
import type { RedisLockSubject } from "./lock-subjects.js";

/** Command counters of one redis-server, read over a connection of its own. */
export class ServerCounters implements ServerCounter<RedisLockSubject> {
  readonly #client: Redis;
  /** The counter's own INFO calls between two readings, as the scenarios have always subtracted them. */
  readonly readingCost = Object.freeze({ requests: 1, "server cmds": 2 });

  constructor(url: string) {
    this.#client = new Redis(url).on("error", () => undefined);
  }

  /** `requests`: calls of the subject's client commands; `server cmds`: every command the server ran. */
  async read(subject: RedisLockSubject): Promise<Readonly<Record<string, number>>> {
    return { requests: await this.calls(subject.clientCommands), "server cmds": await this.total() };
  }

  /** Every command the server executed, script-internal calls included (INFO stats). */
  async total(): Promise<number> {
    const info = await this.#client.info("stats");
    return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
  }

  /** Calls of the named commands (INFO commandstats). */
  async calls(commands: readonly string[]): Promise<number> {
    const info = await this.#client.info("commandstats");
    return commands.reduce((sum, name) => sum + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0), 0);
  }

  async close(): Promise<void> {
    this.#client.disconnect();
  }
}
