import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

describeFaultMatrix(["redis", "redis-cluster", "redlock", "etcd"]);
