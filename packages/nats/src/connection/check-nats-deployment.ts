import { type DeploymentCheck, providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import type { NatsLockProviderOptions } from "../options/nats-lock-provider-options.js";
import { resolveNatsLockOptions } from "../options/resolve-nats-lock-options.js";
import { NatsBucketConnection } from "./nats-bucket-connection.js";

/**
 * `distlock doctor`'s checks of a NATS deployment (`BackendModule.checkDeployment`): the bucket opens with the settings
 * the provider asks for (the provider refuses it otherwise, naming the setting), and those settings keep locks across a
 * server's loss and restart. Nothing found rejects: a bucket that cannot be opened is a `fail` row.
 */
export async function checkNatsDeployment(config: ResolvedLockConfig): Promise<DeploymentCheck[]> {
  const options = resolveNatsLockOptions(providerOptionsFromConfig(config) as unknown as NatsLockProviderOptions, "config");
  const connection = new NatsBucketConnection(options, { interrupted: () => undefined });
  const { bucket, replicas, storage, servers } = options;
  try {
    await connection.bucket();
  } catch (error) {
    const found = `bucket ${bucket} could not be opened: ${error instanceof Error ? error.message : String(error)}`;
    return [{ check: "nats.bucket", status: "fail", found, change: "check the servers, JetStream and the bucket's settings named above" }];
  } finally {
    await connection.close();
  }
  const checks: DeploymentCheck[] = [{ check: "nats.bucket", status: "ok", found: `bucket ${bucket}: R${replicas}, ${storage} storage, history 1` }];
  if (replicas === 1 && servers.length > 1) {
    checks.push({
      check: "nats.replicas",
      status: "warn",
      found: `one copy of the bucket on a ${servers.length}-server URL: while the server that keeps it is down no lock is taken or released, and its disk lost loses every lock's state`,
      change: "replicas=3 (an R3 bucket on a 3-server cluster)",
    });
  } else {
    checks.push({ check: "nats.replicas", status: "ok", found: `R${replicas} over ${servers.length} server(s) named in the URL` });
  }
  if (storage === "memory") {
    checks.push({
      check: "nats.storage",
      status: "fail",
      found:
        "memory storage: a restart of the bucket's servers empties it, so fencing tokens (stream sequences) start over and a stale holder's writes are no longer refused",
      change: "storage=file (the default)",
    });
  } else {
    checks.push({ check: "nats.storage", status: "ok", found: "file storage: locks and their fencing tokens survive a restart" });
  }
  return checks;
}
