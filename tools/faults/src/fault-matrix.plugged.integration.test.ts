import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

// The backends written on the public driver API, loaded by the workers through DISTLOCK_BACKENDS. DynamoDB runs only
// holder-sigkill here: its holder-sigstop row finds waiters starved past the liveness bound (it polls and claims no
// FIFO; docs/fault-matrix.md), a finding still open.
describeFaultMatrix(["nats", "zookeeper", "dynamodb"], { faults: { dynamodb: ["holder-sigkill"] } });
