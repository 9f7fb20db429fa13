/** What `scriptCalls` reads the server with: a test server's `command`. */
interface CommandTarget {
  command(...args: string[]): Promise<unknown>;
}

/** Scripts `server` ran so far: EVALSHA and EVAL calls, less those that failed (an EVALSHA of a script not loaded yet is resent as EVAL). */
export async function scriptCalls(server: CommandTarget): Promise<number> {
  const stats = String(await server.command("INFO", "commandstats"));
  return ["evalsha", "eval"].reduce((sum, command) => {
    const [, calls = "0", failed = "0"] = new RegExp(`^cmdstat_${command}:calls=(\\d+),.*failed_calls=(\\d+)`, "m").exec(stats) ?? [];
    return sum + Number(calls) - Number(failed);
  }, 0);
}
