import type { FencedResource, FenceTarget } from "./fenced-resource.js";

/** The resource a worker writes to; each kind's client library is loaded only by the workers that use it. */
export async function openFencedResource(target: FenceTarget, lockUrl: string): Promise<FencedResource> {
  switch (target.kind) {
    case "sql":
      return new (await import("./sql-resource.js")).SqlFencedResource(target);
    case "redis":
      return new (await import("./redis-resource.js")).RedisFencedResource(target);
    case "etcd":
      return new (await import("./etcd-resource.js")).EtcdFencedResource(lockUrl);
  }
}
