import { Redis } from "ioredis";

/** Command counters summed over the servers of a Redlock group, each read over a connection of its own. */
export class GroupCounters {
  readonly #clients: readonly Redis[];

  constructor(url: string) {
    this.#clients = url
      .replace(/^redlock:\/\//, "")
      .split(",")
      .map((hostPort) => new Redis({ host: hostPort.split(":")[0], port: Number(hostPort.split(":")[1]) }).on("error", () => undefined));
  }

  /** Calls of the named commands (INFO commandstats), summed over every server. */
  async calls(commands: readonly string[]): Promise<number> {
    const infos = await Promise.all(this.#clients.map((client) => client.info("commandstats")));
    return infos.reduce((sum, info) => sum + commands.reduce((s, name) => s + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0), 0), 0);
  }

  /** How many servers one `calls` reading queries (each reading itself costs one INFO per server, not counted). */
  get servers(): number {
    return this.#clients.length;
  }

  async close(): Promise<void> {
    for (const client of this.#clients) client.disconnect();
  }
}
