import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

// The backends written on the public driver API, loaded by the workers through DISTLOCK_BACKENDS, each with every fault
// its fixture has (DynamoDB's holder-sigstop is back since its waiters stand in a line: docs/fault-matrix.md). The
// clusters run only what a single server cannot: the loss of their leader.
describeFaultMatrix(["nats", "nats-cluster", "zookeeper", "zookeeper-ensemble", "dynamodb"], {
  faults: { "nats-cluster": ["leader-loss"], "zookeeper-ensemble": ["leader-loss"] },
});
