import { type DeploymentCheck, providerOptionsFromConfig, type ResolvedLockConfig } from "@distlock/core/driver";
import { resolveZooKeeperLockOptions } from "../options/resolve-zookeeper-lock-options.js";
import type { ZooKeeperLockProviderOptions } from "../options/zookeeper-lock-provider-options.js";
import { ZooKeeperSession } from "./zookeeper-session.js";

/**
 * `distlock doctor`'s checks of a ZooKeeper deployment (`BackendModule.checkDeployment`): a session opens with a
 * timeout the lease can rely on, and the ensemble named in the URL survives a server's loss. Nothing found rejects: a
 * session that cannot be opened is a `fail` row.
 */
export async function checkZooKeeperDeployment(config: ResolvedLockConfig): Promise<DeploymentCheck[]> {
  const options = resolveZooKeeperLockOptions(providerOptionsFromConfig(config) as unknown as ZooKeeperLockProviderOptions, "config");
  const { hosts, sessionTimeoutMs, connectTimeoutMs, commandTimeoutMs } = options;
  const session = new ZooKeeperSession({ connectString: hosts.join(","), sessionTimeoutMs, connectTimeoutMs, commandTimeoutMs });
  let granted: number;
  try {
    granted = await session.ready;
  } catch (error) {
    const found = `no session could be opened: ${error instanceof Error ? error.message : String(error)}`;
    return [{ check: "zookeeper.session", status: "fail", found, change: "check the servers and their minSessionTimeout/maxSessionTimeout" }];
  } finally {
    await session.close();
  }
  return [sessionCheck(granted, sessionTimeoutMs), ensembleCheck(hosts.length)];
}

function sessionCheck(granted: number, asked: number): DeploymentCheck {
  if (granted >= asked) return { check: "zookeeper.session", status: "ok", found: `session timeout ${granted} ms granted, as asked` };
  return {
    check: "zookeeper.session",
    status: "warn",
    found: `session timeout ${granted} ms granted of ${asked} asked (the server's maxSessionTimeout): a connection hiccup longer than that loses every hold`,
    change: `raise the servers' maxSessionTimeout to ${asked} ms, or ask for ${granted} ms`,
  };
}

function ensembleCheck(servers: number): DeploymentCheck {
  if (servers === 1) {
    return {
      check: "zookeeper.ensemble",
      status: "warn",
      found: "one server named: while it is down no lock is taken or released, and its disk lost loses every hold",
      change: "an ensemble of 3 or 5 servers, all named in the URL",
    };
  }
  if (servers % 2 === 0) {
    return {
      check: "zookeeper.ensemble",
      status: "warn",
      found: `${servers} servers named: an even ensemble survives no more server losses than one server fewer`,
      change: `${servers - 1} or ${servers + 1} servers`,
    };
  }
  return { check: "zookeeper.ensemble", status: "ok", found: `${servers} servers named: a quorum survives ${(servers - 1) / 2} lost` };
}
