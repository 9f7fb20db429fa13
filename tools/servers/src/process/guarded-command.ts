import { findBinary } from "../binaries/find-binary.js";
import { TestServerError } from "../errors/test-server-error.js";
import type { OsUser } from "./os-user.js";

/** A command line ready for `spawn`. */
export interface CommandLine {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * Wraps a command in `setpriv --pdeathsig SIGKILL` (util-linux) so the kernel kills it if this
 * process dies without running its exit handlers, and optionally drops to another OS user.
 * setpriv execs the command, so the spawned pid is the server's own pid.
 */
export function guardedCommand(command: string, args: readonly string[], user?: OsUser): CommandLine {
  const setpriv = process.platform === "linux" ? findBinary("setpriv") : undefined;
  if (setpriv === undefined) {
    if (user !== undefined) {
      throw new TestServerError(`Running ${command} as the "${user.name}" OS user needs setpriv: install util-linux, or run the tests as a non-root user.`);
    }
    return { command, args };
  }
  const drop = user === undefined ? [] : ["--reuid", String(user.uid), "--regid", String(user.gid), "--init-groups"];
  return { command: setpriv, args: ["--pdeathsig", "SIGKILL", ...drop, "--", command, ...args] };
}
