import { connect } from "node:net";
import { TestServerError } from "../errors/test-server-error.js";

/**
 * Sends a ZooKeeper four-letter word (`srvr`, `ruok`, `mntr`…) over a fresh TCP connection and resolves with the whole
 * answer: the server writes it and closes the connection.
 */
export function fourLetterWord(port: number, word: string, timeoutMs = 1_000, host = "127.0.0.1"): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new TestServerError(`ZooKeeper ${host}:${port} did not answer "${word}" within ${timeoutMs} ms.`));
    }, timeoutMs);
    socket.once("connect", () => socket.write(word));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}
