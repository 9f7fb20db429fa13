import { Redis } from "ioredis";

/** Command counters of one redis-server, read over a connection of its own. */
export class ServerCounters {
  readonly #client: Redis;

  constructor(url: string) {
    this.#client = new Redis(url).on("error", () => undefined);
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
