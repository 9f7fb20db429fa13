import { describe, expect, it } from "vitest";
import { WaitScope } from "../provider/wait-scope.js";
import { type DriverWait, onWaitAbort } from "./driver-attempt.js";

/** Core's wait, whose signal must not be made: reading it fails the test. */
function scopeWithoutSignal(): { scope: WaitScope; wait: DriverWait } {
  const scope = new WaitScope();
  const wait: DriverWait = {
    get signal(): AbortSignal {
      throw new Error("the signal was made");
    },
    get aborted() {
      return scope.aborted;
    },
    get reason() {
      return scope.reason;
    },
    onAbort: (listener) => scope.onAbort(listener),
  };
  return { scope, wait };
}

describe("onWaitAbort", () => {
  it("hears core's wait end once, with its reason, without making its signal", () => {
    const { scope, wait } = scopeWithoutSignal();
    const heard: unknown[] = [];
    onWaitAbort(wait, (reason) => heard.push(reason));
    scope.abort("timed out");
    scope.abort("again");
    expect(heard).toEqual(["timed out"]);
  });

  it("calls at once for a wait that already ended, and hears nothing after the unsubscribe", () => {
    const { scope, wait } = scopeWithoutSignal();
    scope.abort("closed");
    const heard: unknown[] = [];
    onWaitAbort(wait, (reason) => heard.push(reason));
    expect(heard).toEqual(["closed"]);
    const later = scopeWithoutSignal();
    const unsubscribe = onWaitAbort(later.wait, (reason) => heard.push(reason));
    unsubscribe();
    later.scope.abort("ignored");
    expect(heard).toEqual(["closed"]);
  });

  it("falls back to the signal of a wait that has only one", () => {
    const controller = new AbortController();
    const heard: unknown[] = [];
    const unsubscribe = onWaitAbort({ signal: controller.signal }, (reason) => heard.push(reason));
    controller.abort("caller");
    expect(heard).toEqual(["caller"]);
    const silent = new AbortController();
    onWaitAbort({ signal: silent.signal }, (reason) => heard.push(reason))();
    silent.abort("ignored");
    const ended = new AbortController();
    ended.abort("before");
    onWaitAbort({ signal: ended.signal }, (reason) => heard.push(reason));
    expect(heard).toEqual(["caller", "before"]);
    unsubscribe();
  });

  it("is what core passes a native wait: a scope whose signal is made on first read, aborted like the scope", () => {
    const scope = new WaitScope();
    const heard: unknown[] = [];
    onWaitAbort(scope, (reason) => heard.push(reason));
    scope.abort("gone");
    expect(heard).toEqual(["gone"]);
    expect(scope.signal.aborted).toBe(true);
    expect(scope.signal.reason).toBe("gone");
  });
});
