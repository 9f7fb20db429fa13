import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

// The backends written on the public driver API, loaded by the workers through DISTLOCK_BACKENDS. DynamoDB runs only
// holder-sigkill here: its holder-sigstop row finds waiters starved past the liveness bound (it polls and claims no
// FIFO; docs/fault-matrix.md), a finding still open. The ZooKeeper ensemble runs only what the single server cannot:
// its leader's loss (the process faults run on the single server above).
describeFaultMatrix(["nats", "zookeeper", "zookeeper-ensemble", "dynamodb"], {
  faults: { dynamodb: ["holder-sigkill"], "zookeeper-ensemble": ["leader-loss"] },
});
