import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

describeFaultMatrix(["redis", "redis-cluster", "redis-sentinel", "redis-sentinel-wait1", "redlock", "etcd"]);
