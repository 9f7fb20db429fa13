import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

// The backends written on the public driver API, loaded by the workers through DISTLOCK_BACKENDS, each with every fault
// its fixture has (DynamoDB's holder-sigstop is back since its waiters stand in a line: docs/fault-matrix.md). The
// ZooKeeper ensemble runs only what the single server cannot: its leader's loss. The NATS cluster's leader-loss row is
// long form only: its recovery is the server's 4-9 s election, too near the row's 10 s liveness bound for one CI run
// (packages/nats's own leader-loss test covers the fix).
describeFaultMatrix(["nats", "zookeeper", "zookeeper-ensemble", "dynamodb"], {
  faults: { "zookeeper-ensemble": ["leader-loss"] },
});
