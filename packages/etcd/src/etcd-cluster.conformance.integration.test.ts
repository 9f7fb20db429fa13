import { describeLockProvider } from "@distlock/conformance";
import { startEtcdCluster } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { etcdConformance } from "../test/etcd-conformance.js";

const cluster = await startEtcdCluster(3);
afterAll(() => cluster.close());

describeLockProvider(
  etcdConformance("etcd (3-member cluster)", cluster, {
    pause: () => {
      for (const member of cluster.members) member.pause();
    },
    resume: () => {
      for (const member of cluster.members) member.resume();
    },
  }),
);
