import type { Client } from "node-zookeeper-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CommandTimeoutError } from "./command-timeout-error.js";
import { PendingCalls } from "./pending-calls.js";
import { type Callback, type CallScope, SessionCall } from "./session-call.js";

/** A scope whose client is never asked anything: the calls below answer (or not) through their own `start`. */
function scope(abandoned: string[] = []): CallScope {
  return {
    client: {} as Client,
    pending: new PendingCalls(),
    commandTimeoutMs: 1_000,
    confirm: () => undefined,
    abandon: (reason) => abandoned.push(reason),
  };
}

function callOf<T>(callScope: CallScope, start: (callback: Callback<T>) => void, abandonIfUnanswered = false): Promise<T> {
  return new Promise<T>((resolve, reject) => new SessionCall(callScope, "getData", start, { abandonIfUnanswered }, resolve, reject).send());
}

describe("SessionCall", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("rejects with CommandTimeoutError when no answer comes within commandTimeoutMs, and a create's silence ends the session", async () => {
    const abandoned: string[] = [];
    const unanswered = callOf<string>(scope(abandoned), () => undefined, true);
    const settled = expect(unanswered).rejects.toBeInstanceOf(CommandTimeoutError);
    vi.advanceTimersByTime(1_000);
    await settled;
    expect(abandoned).toHaveLength(1);
  });

  it("resolves with the answer, and a late timeout changes nothing", async () => {
    let answer: Callback<string> | undefined;
    const answered = callOf<string>(scope(), (callback) => {
      answer = callback;
    });
    answer?.(null, "value");
    vi.advanceTimersByTime(1_000);
    await expect(answered).resolves.toBe("value");
  });

  it("rejects with the session's reason when the session is lost first", async () => {
    const callScope = scope();
    const unanswered = callOf<string>(callScope, () => undefined);
    const reason = new Error("session lost");
    callScope.pending.loseAll(reason);
    await expect(unanswered).rejects.toBe(reason);
  });
});
