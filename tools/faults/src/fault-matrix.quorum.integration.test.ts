import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

describeFaultMatrix(["redlock", "etcd"]);
