import { describeFaultMatrix } from "./describe-fault-matrix.test-helper.js";

// Session mode runs only holder-sigstop here, the fault that tests its server-side lease (the idle limit) and found
// both of its bugs: all eight session rows would add about 45 s to CI (the ten rows before them take 57 s). Every row
// runs in the long form (docs/fault-matrix.md); the session loss tests in packages/sql cover SIGKILL, server restart
// and an ended session.
describeFaultMatrix(["sqlite", "postgres", "mysql", "postgres-session", "mysql-session"], {
  faults: { "postgres-session": ["holder-sigstop"], "mysql-session": ["holder-sigstop"] },
});
