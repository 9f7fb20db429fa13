import { ServerStartError } from "../errors/server-start-error.js";
import { TestServerError } from "../errors/test-server-error.js";
import type { ServerProcess } from "./server-process.js";

/**
 * Waits for every promise, then rethrows one failure: a port collision first (so the caller
 * retries on fresh ports), otherwise the one that happened first, which may have caused the others
 * (`startTogether` kills the other members when one fails). Nothing is left running in the background.
 */
export async function settleAll(promises: readonly Promise<unknown>[]): Promise<void> {
  const failures: unknown[] = [];
  await Promise.all(
    promises.map((promise) =>
      promise.catch((error: unknown) => {
        failures.push(error);
      }),
    ),
  );
  if (failures.length === 0) return;
  throw failures.find((error) => error instanceof ServerStartError && error.addressInUse) ?? failures[0];
}

/**
 * Starts servers that need each other (cluster members) together; as soon as one fails the
 * others are killed instead of waiting out their start timeouts. Rethrows as {@link settleAll}.
 */
export async function startTogether(servers: readonly ServerProcess[]): Promise<void> {
  const killAll = (): void => {
    for (const server of servers) void server.kill().catch(() => undefined);
  };
  await settleAll(
    servers.map((server) =>
      server.start().catch((error: unknown) => {
        killAll();
        throw error;
      }),
    ),
  );
}

/** Starts `server`; when that fails, closes it (removing its data dir) and rethrows. */
export async function startOrClose<T extends ServerProcess>(server: T): Promise<T> {
  try {
    await server.start();
    return server;
  } catch (error) {
    await server.close().catch(() => undefined);
    throw error;
  }
}

/** Runs `attempt` again, with fresh ports, while it fails because a port was taken meanwhile. */
export async function retryOnAddressInUse<T>(attempt: () => Promise<T>, attempts = 4): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (tried >= attempts || !(error instanceof ServerStartError && error.addressInUse)) throw error;
    }
  }
}

/**
 * Kills every server of a group, then closes them (removing their data dirs). A graceful stop of a whole group takes
 * seconds (members try to hand leadership over) and buys nothing when the data is deleted.
 */
export async function killAndClose(servers: readonly ServerProcess[]): Promise<void> {
  await settleAll(servers.map((server) => server.kill()));
  await settleAll(servers.map((server) => server.close()));
}

/** Asks `find` every 50 ms until it answers, for up to `timeoutMs`; then throws `TestServerError(failure)`. */
export async function pollFor<T>(find: () => Promise<T | undefined>, timeoutMs: number, failure: string): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (performance.now() >= deadline) throw new TestServerError(failure);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
