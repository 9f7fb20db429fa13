import { TestServerError } from "./test-server-error.js";

const ADDRESS_IN_USE = /address already in use|EADDRINUSE|Bind on TCP\/IP port|could not bind .* address/i;

/** A server process did not become ready; `logTail` holds the end of its output. */
export class ServerStartError extends TestServerError {
  /** Name of the server, e.g. `redis:17001`. */
  readonly serverName: string;
  /** The last lines the server wrote to stdout/stderr during this start attempt. */
  readonly logTail: string;
  /** True when the log says a port was taken: starting again on fresh ports may succeed. */
  readonly addressInUse: boolean;

  constructor(serverName: string, reason: string, logTail: string, options?: ErrorOptions) {
    super(`${serverName} failed to start: ${reason}\n--- log tail ---\n${logTail || "(empty)"}`, options);
    this.serverName = serverName;
    this.logTail = logTail;
    this.addressInUse = ADDRESS_IN_USE.test(logTail);
  }
}
