/** The faults of the matrix. */
export const FAULT_NAMES = [
  "holder-sigkill",
  "holder-sigstop",
  "server-restart",
  "network-cut",
  "minority-loss",
  "majority-loss",
  "leader-loss",
  "master-failover",
] as const;

export type FaultName = (typeof FAULT_NAMES)[number];
