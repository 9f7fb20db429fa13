/**
 * Runs a lockd server: `node lockd-server-main.js [--port N] [--exit-with-parent]`. It listens on 127.0.0.1 only
 * (port 0 picks a free one) and prints `{"port":N}` as one line on stdout once it accepts connections. With
 * `--exit-with-parent` it exits when its stdin ends, so a server started by `startLockdServer` dies with its parent.
 */
import { parseArgs } from "node:util";
import { createLockdServer } from "./lockd-server.js";

const { values } = parseArgs({ options: { port: { type: "string", default: "0" }, "exit-with-parent": { type: "boolean", default: false } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`lockd: --port must be a port number from 0 to 65535, not ${values.port}\n`);
  process.exit(2);
}

const server = createLockdServer();
server.on("error", (error) => {
  process.stderr.write(`lockd: ${error.message}\n`);
  process.exit(1);
});
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === "object" && address !== null ? address.port : port })}\n`);
});
if (values["exit-with-parent"]) {
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}
