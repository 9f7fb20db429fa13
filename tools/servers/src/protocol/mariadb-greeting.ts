import { connect } from "node:net";
import { TestServerError } from "../errors/test-server-error.js";

const PROTOCOL_V10 = 0x0a;
const ERROR_PACKET = 0xff;

/**
 * Connects to a MariaDB/MySQL server and resolves with the server version from its handshake
 * packet; the server sends it only once it accepts connections (after any --init-file).
 */
export function mariadbGreeting(port: number, timeoutMs = 2_000, host = "127.0.0.1"): Promise<string> {
  const where = `MariaDB ${host}:${port}`;
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const socket = connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new TestServerError(`${where} sent no handshake within ${timeoutMs} ms.`)));
    socket.once("error", reject);
    socket.once("close", () => reject(new TestServerError(`${where} closed the connection.`)));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4) return;
      const length = received.readUIntLE(0, 3);
      if (received.length < 4 + length) return;
      const payload = received.subarray(4, 4 + length);
      socket.destroy();
      if (payload[0] === PROTOCOL_V10) {
        resolve(payload.toString("latin1", 1, payload.indexOf(0, 1)));
      } else if (payload[0] === ERROR_PACKET) {
        reject(new TestServerError(`${where} refused: ${payload.toString("utf8", 3)}`));
      } else {
        reject(new TestServerError(`${where} sent an unknown handshake (first byte ${payload[0]}).`));
      }
    });
  });
}
