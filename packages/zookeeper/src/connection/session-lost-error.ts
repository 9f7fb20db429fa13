/** Why a ZooKeeper session can no longer vouch for the holds on it: expired, or not confirmed alive in time. */
export class SessionLostError extends Error {
  override readonly name = "SessionLostError";
}
