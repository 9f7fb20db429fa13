import { createServer, type Server, type Socket } from "node:net";
import { readJsonLines, writeJsonLine } from "../protocol/json-lines.js";
import type { LockdRequest, WireError } from "../protocol/lockd-protocol.js";
import { LockTable } from "./lock-table.js";
import { PermitsMismatch, SemaphoreTable } from "./semaphore-table.js";

/** Marks a request answered later (a semaphore wait), not now. */
const LATER = Symbol("answered later");

/**
 * A lockd server: all lock state in this process's memory, every request handled to its end before the next (Node's
 * one thread, no awaits inside a change), so each request is one atomic operation. Listen on 127.0.0.1 only: lockd has
 * no authentication.
 */
export function createLockdServer(): Server {
  const watchers = new Map<string, Set<Socket>>();
  const locks = new LockTable((key) => {
    for (const socket of watchers.get(key) ?? []) writeJsonLine(socket, { event: "released", key });
  });
  const semaphores = new SemaphoreTable();

  function handle(socket: Socket, id: number, request: LockdRequest): unknown {
    switch (request.op) {
      case "acquire":
        return locks.acquire(request.key, request.secret, request.holder, request.ttlMs);
      case "renew":
        return locks.renew(request.renewals);
      case "release":
        return locks.release(request.key, request.secret);
      case "inspect":
        return locks.inspect(request.key);
      case "list":
        return locks.list(request.prefix, request.limit);
      case "forceRelease":
        return locks.forceRelease(request.key);
      case "watch":
        watchers.set(request.key, (watchers.get(request.key) ?? new Set()).add(socket));
        return null;
      case "unwatch":
        unwatch(socket, request.key);
        return null;
      case "semAcquire": {
        const waiter = {
          request: request.request,
          connection: socket,
          grant: (result: unknown) => writeJsonLine(socket, { id, result }),
          withdrawn: () => writeJsonLine(socket, { id, error: { code: "WITHDRAWN", message: "the wait was taken back" } }),
        };
        const answer = semaphores.acquire(request.request, request.request.wait ? waiter : undefined);
        return answer === "queued" ? LATER : answer;
      }
      case "semWithdraw":
        return semaphores.withdraw(request.name, request.secret);
      case "semRenew":
        return semaphores.renew(request.renewals);
      case "semRelease":
        return semaphores.release(request.name, request.secret);
      case "semInspect":
        return semaphores.inspect(request.name);
      default:
        throw new Error(`unknown operation ${JSON.stringify((request as { op: unknown }).op)}`);
    }
  }

  function unwatch(socket: Socket, key: string): void {
    const sockets = watchers.get(key);
    sockets?.delete(socket);
    if (sockets?.size === 0) watchers.delete(key);
  }

  function answer(socket: Socket, message: unknown): void {
    if (typeof message !== "object" || message === null) {
      socket.destroy();
      return;
    }
    const { id, ...request } = message as { id: number } & LockdRequest;
    let result: unknown;
    try {
      result = handle(socket, id, request as LockdRequest);
    } catch (failure) {
      writeJsonLine(socket, { id, error: wireError(failure) });
      return;
    }
    if (result !== LATER) writeJsonLine(socket, { id, result });
  }

  return createServer((socket) => {
    socket.setNoDelay(true);
    readJsonLines(socket, (message) => answer(socket, message));
    socket.on("error", () => undefined); // "close" follows
    socket.on("close", () => {
      for (const key of [...watchers.keys()]) unwatch(socket, key);
      semaphores.dropConnection(socket);
    });
  });
}

function wireError(failure: unknown): WireError {
  if (failure instanceof PermitsMismatch) {
    return { code: "PERMITS_MISMATCH", message: failure.message, permits: failure.permits, storedPermits: failure.storedPermits };
  }
  return { code: "BAD_REQUEST", message: failure instanceof Error ? failure.message : String(failure) };
}
