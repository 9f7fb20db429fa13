import { UpgradeRefusedError } from "../errors/upgrade-refused-error.js";
import type { Permit, ReadWriteMode } from "../types.js";
import { SharedGrant } from "./shared-grant.js";

/**
 * The read-write grants of one provider by lock name and owner scope (`runAsLockOwner`), so that an acquire in a scope
 * that already holds the lock re-enters its grant instead of asking the server for another (which could queue behind
 * a waiting writer, and wait for itself).
 */
export class OwnerGrants {
  readonly #byLock = new Map<string, Map<string, Set<SharedGrant>>>();

  /**
   * The grant of `scope` that an acquire of `mode` re-enters: a live writer's grant for either side, a live reader's
   * for read; undefined when it needs a new grant. Throws `UpgradeRefusedError` for write while the scope only reads.
   */
  reentry(name: string, scope: string, mode: ReadWriteMode): SharedGrant | undefined {
    const grants = this.#byLock.get(name)?.get(scope);
    if (grants === undefined) return undefined;
    let shared: SharedGrant | undefined;
    for (const grant of grants) {
      // A lost grant can no longer be proven: nothing re-enters it, and its own holds still release it.
      if (!grant.live) this.#forget(name, scope, grant);
      else if (grant.exclusive) return grant;
      else shared = grant;
    }
    if (shared !== undefined && mode === "write") throw new UpgradeRefusedError(name);
    return shared;
  }

  /** A new grant of `scope` (undefined: an acquire outside any scope, which nothing re-enters). */
  add(name: string, scope: string | undefined, permit: Permit, exclusive: boolean): SharedGrant {
    if (scope === undefined) return new SharedGrant(permit, exclusive, () => undefined);
    const grant = new SharedGrant(permit, exclusive, (ended) => this.#forget(name, scope, ended));
    let byScope = this.#byLock.get(name);
    if (byScope === undefined) {
      byScope = new Map();
      this.#byLock.set(name, byScope);
    }
    let grants = byScope.get(scope);
    if (grants === undefined) {
      grants = new Set();
      byScope.set(scope, grants);
    }
    grants.add(grant);
    return grant;
  }

  /** Forgets every grant (the provider closed: its holds are lost). */
  clear(): void {
    this.#byLock.clear();
  }

  #forget(name: string, scope: string, grant: SharedGrant): void {
    const byScope = this.#byLock.get(name);
    const grants = byScope?.get(scope);
    if (byScope === undefined || grants === undefined || !grants.delete(grant) || grants.size > 0) return;
    byScope.delete(scope);
    if (byScope.size === 0) this.#byLock.delete(name);
  }
}
