import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

// The key-value backends' rows are split over two files (Redis; Redlock and etcd) that run side by side.
describeFaultMatrix(["redis", "redis-cluster", "redis-sentinel", "redis-sentinel-wait1"]);
