import { describeLockProvider } from "@distlock/conformance";
import { startEtcd } from "@distlock/test-servers";
import { afterAll } from "vitest";
import { etcdConformance } from "../test/etcd-conformance.js";

// The 3-member cluster runs the same suite in etcd-cluster.conformance.integration.test.ts, a file of its own so that
// the two can run side by side.
const single = await startEtcd();
afterAll(() => single.close());

describeLockProvider(etcdConformance("etcd (single member)", single, { pause: () => single.pause(), resume: () => single.resume() }));
