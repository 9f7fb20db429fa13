import { Redis } from "ioredis";
import type { ServerCounter } from "../harness/index.js";
import type { RedisLockSubject } from "./lock-subjects.js";

/** Calls of some commands and the server time they took, from INFO commandstats. */
export interface CommandStats {
  readonly calls: number;
  /** µs the server spent executing them; a script's time includes the calls it makes inside. */
  readonly usec: number;
}

/** What the counters' columns mean, for the notes under a table. */
export const SERVER_COUNTERS_NOTE =
  "- requests: calls of the subject's own client commands; server µs: the time redis-server spent executing them (INFO commandstats `usec`; a script's time includes the calls it makes inside, which are not added again); server CPU µs: all the CPU time redis-server used (INFO cpu, user + sys: also reading and writing sockets and delivering pub/sub messages); server cmds: every command the server ran, script-internal calls included (INFO stats)";

/** Command counters of one redis-server, read over a connection of its own. */
export class ServerCounters implements ServerCounter<RedisLockSubject> {
  readonly #client: Redis;
  /**
   * The counter's own INFO calls between two readings: the INFO stats of the first and the INFO cpu and commandstats
   * of the second count in `server cmds`. INFO is none of a subject's commands, so `requests` and `server µs` leave
   * them out; their CPU time (a few µs per reading) stays in `server CPU µs`.
   */
  readonly readingCost = Object.freeze({ requests: 0, "server cmds": 3 });

  constructor(url: string) {
    this.#client = new Redis(url).on("error", () => undefined);
  }

  /**
   * `requests`: calls of the subject's client commands; `server µs`: the time the server spent executing them;
   * `server CPU µs`: all the CPU time the server used; `server cmds`: every command the server ran.
   */
  async read(subject: RedisLockSubject): Promise<Readonly<Record<string, number>>> {
    const cpu = await this.cpuUs();
    const own = await this.commandStats(subject.clientCommands);
    return { requests: own.calls, "server µs": own.usec, "server CPU µs": cpu, "server cmds": await this.total() };
  }

  /** The CPU time (user + sys, µs) redis-server has used since it started, all its threads (INFO cpu). */
  async cpuUs(): Promise<number> {
    const info = await this.#client.info("cpu");
    const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? 0);
    return Math.round((seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1e6);
  }

  /** Every command the server executed, script-internal calls included (INFO stats). */
  async total(): Promise<number> {
    const info = await this.#client.info("stats");
    return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
  }

  /**
   * Calls of the named commands and their time (INFO commandstats). Only the commands a client sent: the server also
   * counts the calls a script makes inside, whose time its own already includes.
   */
  async commandStats(commands: readonly string[]): Promise<CommandStats> {
    const info = await this.#client.info("commandstats");
    let calls = 0;
    let usec = 0;
    for (const name of commands) {
      const match = new RegExp(`cmdstat_${name}:calls=(\\d+),usec=(\\d+)`).exec(info);
      calls += Number(match?.[1] ?? 0);
      usec += Number(match?.[2] ?? 0);
    }
    return { calls, usec };
  }

  async close(): Promise<void> {
    this.#client.disconnect();
  }
}
