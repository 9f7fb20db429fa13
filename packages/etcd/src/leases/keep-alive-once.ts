import { castGrpcError, type Etcd3 } from "etcd3";
import { grpcDeadline } from "../connection/grpc-deadline.js";

/**
 * Sends one keepalive for `leaseId` on its own stream and returns the TTL etcd answered with, in
 * seconds (0 or less: the lease is gone). The stream carries a deadline, so this never hangs.
 */
export async function keepAliveOnce(client: Etcd3, leaseId: string, timeoutMs: number): Promise<number> {
  const stream = await client.leaseClient.leaseKeepAlive({ deadline: grpcDeadline(timeoutMs) });
  return new Promise<number>((resolve, reject) => {
    stream.on("data", (response: { TTL: string }) => {
      stream.end();
      resolve(Number(response.TTL));
    });
    stream.on("error", (error: Error) => reject(castGrpcError(error)));
    stream.on("end", () => reject(new Error("the keepalive stream ended without an answer")));
    stream.write({ ID: leaseId });
  });
}
