import type { Socket } from "node:net";

/** Longest line either side accepts; a longer one ends the connection rather than filling memory. */
const MAX_LINE_LENGTH = 1 << 20;

/** Calls `onMessage` with each JSON value `socket` receives, one per line; a line that is not JSON ends the connection. */
export function readJsonLines(socket: Socket, onMessage: (message: unknown) => void): void {
  let buffered = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        socket.destroy();
        return;
      }
      onMessage(message);
    }
    if (buffered.length > MAX_LINE_LENGTH) socket.destroy();
  });
}

/** Writes `message` as one line, unless the socket can no longer be written to. */
export function writeJsonLine(socket: Socket, message: unknown): void {
  if (socket.writable) socket.write(`${JSON.stringify(message)}\n`);
}
