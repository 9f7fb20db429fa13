import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

// The backends written on the public driver API, loaded by the workers through DISTLOCK_BACKENDS. DynamoDB runs only
// holder-sigkill here: its holder-sigstop row finds waiters starved past the liveness bound (it polls and claims no
// FIFO; docs/fault-matrix.md), a finding still open. The NATS cluster runs leader-loss, which found its waiters stalled
// after the stream leader was killed (docs/fault-matrix.md); its process faults are the single server's rows.
describeFaultMatrix(["nats", "nats-cluster", "zookeeper", "dynamodb"], { faults: { "nats-cluster": ["leader-loss"], dynamodb: ["holder-sigkill"] } });
