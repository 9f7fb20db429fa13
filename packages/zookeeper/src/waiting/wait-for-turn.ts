import type { DriverAcquireRequest, DriverGranted, DriverWait } from "@distlock/core/driver";
import type { LockContext } from "../recipe/lock-context.js";
import { grantFirst, type InLine, takeHold, withdraw } from "../recipe/take-hold.js";
import { waitUntilFirst } from "./wait-until-first.js";

/**
 * Native waiting, Curator's loop: join the line, then wait for the node just ahead to go, read the line again, and so
 * on until first. Waiters are served in the order their nodes were created (FIFO). An abort withdraws our node, which
 * also gives back a grant that raced the abort. A node that vanished (force-release, or the session ended) joins again
 * at the back.
 */
export async function waitForTurn(context: LockContext, request: DriverAcquireRequest, wait: DriverWait): Promise<DriverGranted> {
  const { signal } = wait;
  for (;;) {
    signal.throwIfAborted();
    const taken = await takeHold(context, request, false);
    if ("granted" in taken) return taken.granted;
    if ("refusedMs" in taken) continue;
    const granted = await waitInLine(context, request, taken.inLine, signal);
    if (granted !== undefined) return granted;
  }
}

async function waitInLine(context: LockContext, request: DriverAcquireRequest, inLine: InLine, signal: AbortSignal): Promise<DriverGranted | undefined> {
  const { session, lockPath, name } = inLine;
  const nodePath = `${lockPath}/${name}`;
  try {
    const position = await waitUntilFirst(session, lockPath, name, inLine.predecessor, signal, context.layout.lockName);
    if (position.kind === "gone") return undefined;
    return grantFirst(context, session, request, inLine.owner, nodePath, position);
  } catch (error) {
    await withdraw(context, session, nodePath);
    throw signal.aborted ? signal.reason : error;
  }
}
