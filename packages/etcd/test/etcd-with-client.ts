import { type EtcdServer, startEtcd } from "@distlock/test-servers";
import { Etcd3 } from "etcd3";
import { afterAll } from "vitest";

/** One etcd member for a test file, and a plain etcd3 client on it to read and change keys and leases directly; both closed after the file. */
export async function startEtcdWithClient(): Promise<{ server: EtcdServer; raw: Etcd3 }> {
  const server = await startEtcd();
  const raw = new Etcd3({ hosts: [...server.endpoints] });
  afterAll(async () => {
    raw.close();
    await server.close();
  });
  return { server, raw };
}
