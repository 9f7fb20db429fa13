import { ContainerModule } from "inversify";
import { createLockProvider } from "../config/create-lock-provider.js";
import type { LockProviderConfig } from "../config/lock-config.js";
import type { LockProvider } from "../types.js";

/** The service identifier of the container's `LockProvider`. */
export const LOCK_PROVIDER: symbol = Symbol.for("@distlock/core/LockProvider");

/**
 * Binds one singleton `LockProvider` built from `config` (a URL or config object; `DISTLOCK_URL` when
 * omitted), resolved with `container.getAsync(LOCK_PROVIDER)` and closed when the container unbinds it (use `unbindAllAsync`).
 */
export function lockProviderModule(config?: string | LockProviderConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<LockProvider>(LOCK_PROVIDER)
      .toDynamicValue(() => createLockProvider(config))
      .inSingletonScope()
      .onDeactivation((provider) => provider.close());
  });
}
